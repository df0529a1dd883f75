package protocol_test

import (
	"encoding/json"
	"fmt"

	"github.com/affordances-go/affordances/protocol"
)

// An agent reads a graph: what the page shows, what it can do there, and
// why an action it cannot take now is unavailable.
func ExampleGraph() {
	body := `{"v":"0","page":"/cart","route":"/cart",
		"entities":{"cart":{"count":0}},
		"actions":[{"name":"placeOrder","description":"Order the cart","input":{"type":"object"},
			"expose":"confirm","available":false,"reason":"the cart is empty"}],
		"nav":[{"to":"/","label":"Shop"}]}`
	var g protocol.Graph
	if err := json.Unmarshal([]byte(body), &g); err != nil {
		fmt.Println(err)
		return
	}
	a := g.Action("placeOrder")
	fmt.Println(g.Route, a.Expose, a.Available, a.Reason)
	fmt.Println(a.Expose.NeedsSession(), g.Nav[0].To)
	// Output:
	// /cart confirm false the cart is empty
	// true /
}

// A call names an action on the page and carries its input; the answer
// is a delta.
func ExampleCall() {
	b, _ := json.Marshal(protocol.Call{Action: "addToCart", Input: json.RawMessage(`{"sku":"TEE-BLK-M"}`)})
	fmt.Println(string(b))
	// Output:
	// {"action":"addToCart","input":{"sku":"TEE-BLK-M"}}
}

// A failed call's delta carries its code, a message, and for invalid input
// every issue with a JSON Pointer to it; the code gives the HTTP status.
func ExampleFail() {
	d := protocol.Fail(protocol.CodeInvalidInput, "the input is invalid",
		protocol.Issue{Path: "/qty", Message: "must be at most 10", Keyword: "maximum"})
	b, _ := json.Marshal(d)
	fmt.Println(string(b))
	fmt.Println(d.Error.Code.Status())
	// Output:
	// {"ok":false,"error":{"code":"invalid_input","message":"the input is invalid","issues":[{"path":"/qty","message":"must be at most 10","keyword":"maximum"}]}}
	// 400
}
