package site

import (
	"net/http"
	"time"

	"github.com/affordances-go/affordances/internal/negotiate"
	"github.com/affordances-go/affordances/internal/respond"
	"github.com/affordances-go/affordances/protocol"
)

// serveGraph answers an agent's GET or HEAD of a page with its graph.
func (s *Site) serveGraph(w http.ResponseWriter, hr *http.Request, p *Page) {
	b, e := s.graphBytes(hr, p, TransportAgent)
	if e != nil {
		writeFailure(w, hr, e)
		return
	}
	s.checkSize(p.route, len(b))
	respond.Document(w, hr, http.StatusOK, b)
}

// graphBytes reads the page's graph for a transport and tells the site's
// Observer about the read.
func (s *Site) graphBytes(hr *http.Request, p *Page, transport Transport) ([]byte, *Error) {
	if s.opts.Observer == nil {
		b, _, e := s.encodeGraph(hr, p)
		return b, e
	}
	start := time.Now()
	b, mode, e := s.encodeGraph(hr, p)
	s.observeGraph(hr.Context(), p, transport, mode, start, len(b), e)
	return b, e
}

// encodeGraph finds the caller, loads the page's state and encodes its
// graph.
func (s *Site) encodeGraph(hr *http.Request, p *Page) ([]byte, protocol.AuthMode, *Error) {
	r, g, e := s.pageGraph(hr, p)
	if e != nil {
		if r == nil {
			return nil, "", e
		}
		return nil, r.Caller.Mode, e
	}
	// A page's md repeats what its entities hold: the graph on the wire
	// carries it only when the agent asked (md=1) or when it is all the
	// page shows. The Markdown answer and the doors keep it.
	if len(g.Entities) > 0 && !negotiate.GraphMD(hr) {
		g.MD = ""
	}
	// Graph's own MarshalJSON writes compact JSON: calling it directly
	// spares json.Marshal's second pass over the whole document.
	b, err := g.MarshalJSON()
	if err != nil {
		s.opts.Logger.ErrorContext(r.Context(), "affordances: encoding graph", "route", p.route, "err", err)
		return nil, r.Caller.Mode, newInternalError()
	}
	return b, r.Caller.Mode, nil
}

// pageGraph finds the caller, loads the page's state and builds its
// graph: what a graph and the page's Markdown are written from. The
// Request is nil when the caller could not be found.
func (s *Site) pageGraph(hr *http.Request, p *Page) (*Request, protocol.Graph, *Error) {
	r, e := s.authenticate(hr)
	if e != nil {
		return nil, protocol.Graph{}, e
	}
	st, e := p.loadState(r)
	if e != nil {
		return r, protocol.Graph{}, e
	}
	g := p.graph(r, st)
	if e := p.checkFault(r, st); e != nil {
		return r, protocol.Graph{}, e
	}
	return r, g, nil
}

// graph builds the page's graph for this request and state.
func (p *Page) graph(r *Request, st *State) protocol.Graph {
	return protocol.Graph{
		V:        protocol.Version,
		Page:     r.URL.EscapedPath(),
		Route:    p.route,
		Entities: st.entities,
		Actions:  p.describe(r, st),
		Nav:      st.Nav,
		MD:       st.MD,
	}
}

// describe lists the descriptors of the actions this requester may see.
func (p *Page) describe(r *Request, st *State) []protocol.ActionDescriptor {
	out := make([]protocol.ActionDescriptor, 0, len(p.actions))
	for _, a := range p.actions {
		if a.listed(r) {
			out = append(out, a.describe(r, st))
		}
	}
	return out
}

// checkSize logs, once per route, a graph larger than the token ceiling.
func (s *Site) checkSize(route string, n int) {
	tokens := n / 4
	if tokens <= s.opts.Limits.GraphTokens {
		return
	}
	if _, seen := s.warned.LoadOrStore(route, struct{}{}); seen {
		return
	}
	s.opts.Logger.Warn("affordances: graph is larger than the token ceiling; summarise large collections in entities",
		"route", route, "bytes", n, "tokens", tokens, "limit", s.opts.Limits.GraphTokens)
}
