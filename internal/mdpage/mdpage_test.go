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
