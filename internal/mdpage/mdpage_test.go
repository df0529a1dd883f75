package mdpage

import (
	"strings"
	"testing"

	"github.com/affordances-go/affordances/protocol"
)

// A link the page's md shows already is not listed again under Links;
// one with a condition, or to another target, still is.
func TestRender_LinksTheMDShowsAreNotRepeated(t *testing.T) {
	g := protocol.Graph{
		MD: "# Catalog\n\n- [Tee](/products/tee): 29.00 EUR\n- [Mug](/products/mug): 12.00 EUR",
		Nav: []protocol.Nav{
			{To: "/products/tee", Label: "Tee"},
			{To: "/products/mug", Label: "Mug", When: "to see the mug"},
			{To: "/products/tee-shirt", Label: "Tee shirt"},
			{To: "/cart", Label: "Cart"},
		},
	}
	got := Render(g, "Catalog", Post)
	links := got[strings.Index(got, "## Links"):]
	want := "## Links\n\n- [Mug](/products/mug), when to see the mug\n- [Tee shirt](/products/tee-shirt)\n- [Cart](/cart)\n"
	if links != want {
		t.Errorf("links:\n%s\nwant:\n%s", links, want)
	}
	// Every link shown already: no Links section at all.
	g.Nav = g.Nav[:1]
	if got := Render(g, "Catalog", Post); strings.Contains(got, "## Links") {
		t.Errorf("an empty Links section:\n%s", got)
	}
	// Without md, the page's entities show no links: all are listed.
	g.MD, g.Entities = "", map[string]any{"n": 1}
	if got := Render(g, "Catalog", Post); !strings.Contains(got, "- [Tee](/products/tee)\n") {
		t.Errorf("without md:\n%s", got)
	}
}

// How a reader runs the actions decides how they are written: with their
// inputs or not, beside the tool that runs each when its name is another,
// and the line after them.
func TestRender_ActionsAsTheReaderRunsThem(t *testing.T) {
	g := protocol.Graph{MD: "# Tee", Actions: []protocol.ActionDescriptor{
		{ActionSummary: protocol.ActionSummary{Name: "addToCart", Description: "Add it", Expose: protocol.ExposePublic,
			Input: []byte(`{"type":"object","properties":{"sku":{"type":"string"}},"required":["sku"]}`)}, Available: true},
		{ActionSummary: protocol.ActionSummary{Name: "review", Description: "Review it", Expose: protocol.ExposeSession,
			Input: []byte(`{"type":"object"}`)}, Reason: "sign in first"},
	}}
	post := Render(g, "Tee", Post)
	for _, want := range []string{"- `addToCart`: Add it. Available. Input: `sku` (", "- `review`: Review it. Not available: sign in first; needs a signed-in caller.\n", "POST"} {
		if !strings.Contains(post, want) {
			t.Errorf("for a POST, %q is missing:\n%s", want, post)
		}
	}
	tools := Render(g, "Tee", Runner{How: "Run it with its tool.", Tool: func(a string) string {
		if a == "addToCart" {
			return "addToCart_products"
		}
		return a
	}})
	for _, want := range []string{"- `addToCart` (tool `addToCart_products`): Add it. Available.\n", "- `review`: Review", "\nRun it with its tool.\n"} {
		if !strings.Contains(tools, want) {
			t.Errorf("for tools, %q is missing:\n%s", want, tools)
		}
	}
	if strings.Contains(tools, "Input:") || strings.Contains(tools, "POST") {
		t.Errorf("a tool carries its input, and is no POST:\n%s", tools)
	}
}
