package site

import (
	"encoding/json"
	"errors"
	"net/http"

	"github.com/affordances-go/affordances/protocol"
)

// serveGraph answers an agent's GET or HEAD of a page with its graph.
func (s *Site) serveGraph(w http.ResponseWriter, hr *http.Request, p *Page) {
	r, err := s.request(hr)
	if err != nil {
		s.authFailure(w, hr, err)
		return
	}
	st, err := p.load(r)
	if err != nil {
		s.loadFailure(w, r, p, err)
		return
	}
	b, err := json.Marshal(p.graph(r, st))
	if err != nil {
		s.log.ErrorContext(r.Context(), "affordances: encoding graph", "route", p.route, "err", err)
		writeDelta(w, hr, http.StatusInternalServerError, internalDelta)
		return
	}
	s.checkSize(p.route, len(b))
	writeDocument(w, hr, http.StatusOK, b)
}

// loadFailure answers an agent whose page could not be loaded.
func (s *Site) loadFailure(w http.ResponseWriter, r *Request, p *Page, err error) {
	if errors.Is(err, ErrNotFound) {
		writeDelta(w, r.Request, http.StatusNotFound, protocol.Fail(protocol.CodeNotFound, "no such page"))
		return
	}
	s.log.ErrorContext(r.Context(), "affordances: page loader failed", "route", p.route, "path", r.URL.Path, "err", err)
	writeDelta(w, r.Request, http.StatusInternalServerError, internalDelta)
}

// graph builds the page's graph for this request and state.
func (p *Page) graph(r *Request, st *State) protocol.Graph {
	return protocol.Graph{
		V:        protocol.Version,
		Page:     r.URL.EscapedPath(),
		Route:    p.route,
		Entities: st.Entities,
		Actions:  p.describe(r, st),
		Nav:      st.Nav,
		MD:       st.MD,
	}
}

// describe lists the descriptors of the actions this requester may see.
func (p *Page) describe(r *Request, st *State) []protocol.ActionDescriptor {
	out := make([]protocol.ActionDescriptor, 0, len(p.actions))
	for _, a := range p.actions {
		if a.visible(r) {
			out = append(out, a.describe(r, st))
		}
	}
	return out
}

// checkSize logs, once per route, a graph larger than the token ceiling.
func (s *Site) checkSize(route string, n int) {
	tokens := n / 4
	if tokens <= s.tokenLimit {
		return
	}
	if _, seen := s.warned.LoadOrStore(route, struct{}{}); seen {
		return
	}
	s.log.Warn("affordances: graph is larger than the token ceiling; summarise large collections in entities",
		"route", route, "bytes", n, "tokens", tokens, "limit", s.tokenLimit)
}
