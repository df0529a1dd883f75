package protocol

import "encoding/json"

// Graph is what a page is for an agent: the state it shows, what can be done
// there and where to go next. A server sends it for a GET of the page's own
// URL that asks for [MediaType].
type Graph struct {
	// V is the protocol major version of the document, "0" here.
	V string `json:"v"`
	// Page is the concrete path that was requested, such as
	// /products/heavyweight-tee.
	Page string `json:"page"`
	// Route is the pattern the page belongs to, in bracket form, such as
	// /products/[slug].
	Route string `json:"route"`
	// Entities is the page's state, keyed by entity name. It holds nothing
	// the HTML page would not show the same person.
	Entities map[string]any `json:"entities"`
	// Actions lists every action on the route that this requester may know
	// about, including those it cannot call right now.
	Actions []ActionDescriptor `json:"actions"`
	// Nav lists links an agent can follow from here.
	Nav []Nav `json:"nav,omitempty"`
	// MD is an optional Markdown rendering of the page's content.
	MD string `json:"md,omitempty"`
}

// MarshalJSON writes the graph with its required collections present even
// when they are nil, so the document always matches the schema.
func (g Graph) MarshalJSON() ([]byte, error) {
	type plain Graph
	if g.Entities == nil {
		g.Entities = map[string]any{}
	}
	if g.Actions == nil {
		g.Actions = []ActionDescriptor{}
	}
	return json.Marshal(plain(g))
}

// Action returns the descriptor named name, or nil when the graph lists none.
func (g *Graph) Action(name string) *ActionDescriptor {
	for i := range g.Actions {
		if g.Actions[i].Name == name {
			return &g.Actions[i]
		}
	}
	return nil
}

// Nav is a link an agent can follow from a page.
type Nav struct {
	// To is the path or URL of the target.
	To string `json:"to"`
	// Label names the link as the page would.
	Label string `json:"label,omitempty"`
	// When is a condition under which the link makes sense, written for a
	// reader, such as "more than 20 results".
	When string `json:"when,omitempty"`
}
