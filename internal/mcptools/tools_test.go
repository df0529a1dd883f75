package mcptools

import (
	"encoding/json"
	"testing"

	"github.com/affordances-go/affordances/protocol"
)

// A tool's input schema is the action's without the form labels, with
// the page argument first among the required ones; its description is
// the action's, its route, its guard and who may call it, in that order.
func TestDescribe_LeanSchemaAndDescription(t *testing.T) {
	routes := []protocol.IndexRoute{{Route: "/orders/[id]", Description: "One order, said at length", Actions: []protocol.ActionSummary{{
		Name: "cancelOrder", Description: "Cancel this order", Expose: protocol.ExposeConfirm, Guard: "it has not shipped",
		Input: []byte(`{"type":"object","properties":{"reason":{"title":"Reason","description":"why","type":"string"}},"required":["reason"]}`),
	}}}}
	tl := Describe(routes)[0]
	in, _ := json.Marshal(tl.Def.InputSchema)
	want := `{"properties":{"page":{"description":"path of a /orders/[id] page","type":"string"},"reason":{"description":"why","type":"string"}},"required":["page","reason"],"type":"object"}`
	if string(in) != want {
		t.Errorf("input schema\n got %s\nwant %s", in, want)
	}
	if d := tl.Def.Description; d != "Cancel this order. On /orders/[id]. Only when it has not shipped. Needs sign-in and the person's approval." {
		t.Errorf("description %q", d)
	}
	if tl.Def.OutputSchema != nil || tl.Def.Annotations.Title != "" {
		t.Errorf("output schema %s, annotations' title %q", tl.Def.OutputSchema, tl.Def.Annotations.Title)
	}
	// An input without titles and a route without parameters: the schema as it is.
	routes[0].Route = "/orders"
	routes[0].Actions[0].Input = []byte(`{"type":"object","properties":{"n":{"type":"integer"}}}`)
	if in, _ := json.Marshal(Describe(routes)[0].Def.InputSchema); string(in) != `{"type":"object","properties":{"n":{"type":"integer"}}}` {
		t.Errorf("schema changed: %s", in)
	}
}

// The form labels go at every depth: a nested object's fields and an
// array's items lose their titles too, and a property named "title" stays.
func TestDescribe_NoFormLabelsAtAnyDepth(t *testing.T) {
	routes := []protocol.IndexRoute{{Route: "/checkout", Actions: []protocol.ActionSummary{{
		Name: "placeOrder", Description: "Order the cart", Expose: protocol.ExposeConfirm,
		Input: []byte(`{"type":"object","properties":{` +
			`"address":{"type":"object","title":"Deliver to","properties":{"country":{"type":"string","title":"Country","description":"ISO 3166 code"}}},` +
			`"lines":{"type":"array","items":{"type":"object","properties":{"sku":{"type":"string","title":"SKU"}}}},` +
			`"title":{"type":"string","title":"Title of the order"}}}`),
	}}}}
	in, _ := json.Marshal(Describe(routes)[0].Def.InputSchema)
	want := `{"properties":{"address":{"properties":{"country":{"description":"ISO 3166 code","type":"string"}},"type":"object"},` +
		`"lines":{"items":{"properties":{"sku":{"type":"string"}},"type":"object"},"type":"array"},` +
		`"title":{"type":"string"}},"type":"object"}`
	if string(in) != want {
		t.Errorf("input schema\n got %s\nwant %s", in, want)
	}
}
