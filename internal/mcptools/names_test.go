package mcptools

import (
	"slices"
	"testing"

	"github.com/affordances-go/affordances/protocol"
)

// The same action on two routes: each tool is the action qualified by
// its route in one camel-case word; an action alone keeps its name.
func TestDescribe_NamesOfAnActionOnSeveralRoutes(t *testing.T) {
	act := func(name string) protocol.ActionSummary {
		return protocol.ActionSummary{Name: name, Expose: protocol.ExposePublic, Input: []byte(`{"type":"object"}`)}
	}
	routes := []protocol.IndexRoute{
		{Route: "/dials", Actions: []protocol.ActionSummary{act("createDial"), act("search")}},
		{Route: "/dials/new", Actions: []protocol.ActionSummary{act("createDial")}},
		{Route: "/dials-new", Actions: []protocol.ActionSummary{act("createDial")}},
		{Route: "/products/[slug]", Actions: []protocol.ActionSummary{act("readPage")}},
	}
	var names []string
	for _, tl := range Describe(routes) {
		names = append(names, tl.Def.Name)
	}
	want := []string{"createDial_dials", "search", "createDial_dialsNew", "createDial_dialsNew_2", "readPage_productsBySlug"}
	if !slices.Equal(names, want) {
		t.Errorf("names %q, want %q", names, want)
	}
}
