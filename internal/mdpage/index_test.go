package mdpage

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/affordances-go/affordances/protocol"
)

// The index as Markdown names every route and action, says who may run
// each and its input in a line, and reads back to the same routes and
// actions.
func TestIndex_WritesAndReadsBack(t *testing.T) {
	idx := protocol.SiteIndex{Name: "Shop", Routes: []protocol.IndexRoute{
		{Route: "/", Description: "The catalog"},
		{Route: "/products/[slug]", Description: "One product", Actions: []protocol.ActionSummary{
			{Name: "addToCart", Description: "Add to the cart", Expose: protocol.ExposePublic, Guard: "in stock",
				Input: json.RawMessage(`{"type":"object","properties":{"sku":{"type":"string"},"qty":{"type":"integer","minimum":1}},"required":["sku"]}`)}}},
		{Route: "/checkout", Actions: []protocol.ActionSummary{
			{Name: "placeOrder", Description: "Order the cart", Expose: protocol.ExposeConfirm, Approval: true, Input: json.RawMessage(`{"type":"object"}`)}}},
	}}
	text := Index(idx)
	for _, want := range []string{"## /products/[slug]", "One product", "- `addToCart`: Add to the cart (when in stock). Input: `qty` (integer, at least 1), `sku` (string, required).",
		"- `placeOrder`: Order the cart; needs a signed-in caller and the person's confirmation on the site."} {
		if !strings.Contains(text, want) {
			t.Errorf("the index as Markdown lacks %q:\n%s", want, text)
		}
	}
	if got := fmt.Sprint(IndexActions(text)); got != "[[/products/[slug] addToCart] [/checkout placeOrder]]" {
		t.Errorf("read back: %s", got)
	}
}
