package site

import (
	"net/http"
	"net/url"
	"time"

	"github.com/affordances-go/affordances/internal/route"
	"github.com/affordances-go/affordances/protocol"
)

// The exported functions of this file let another transport (the MCP
// endpoint) read pages and run calls through exactly
// the same steps as a GET or a POST of the page: the same authentication,
// the same Origin rule, the same rate limit keys, the same validation,
// guard, confirmation and delta, and one audit record per call.

// Call is one call carried by another transport than a POST to the page:
// the protocol's call (its action, input, confirm and approval) and what
// the transport knows of it besides.
type Call struct {
	protocol.Call
	// Page is the path of the page the call is made on, such as
	// /products/heavyweight-tee.
	Page string
	// Transport names the transport in the audit log and to the
	// Observer; empty is TransportOther. Confirm is set by a transport
	// only when a person approved the call.
	Transport Transport
	// IdempotencyKey makes the call run at most once per caller and key,
	// as the Idempotency-Key header of a POST does (the MCP endpoint takes
	// it from the tool call's _meta).
	IdempotencyKey string
	// Basis is, with Confirm, the basis of the summary the person
	// confirmed ([Error.Basis] of the confirm_required that asked them),
	// which the door kept: the action checks it runs on that state.
	Basis string
}

// CallResult is the answer to a successful call.
type CallResult struct {
	// Delta is the call's delta.
	Delta protocol.Delta
	// Header holds the headers the action set, such as its cookies.
	Header http.Header
	// Replayed reports that the delta is the stored outcome of an earlier
	// call with the same IdempotencyKey: nothing ran now.
	Replayed bool
}

// Execute runs a call through the pipeline of a POST to the page. hr
// carries the caller: its Authorization and Cookie headers, its Origin
// (held to the same rule as a POST) and its address; its method, URL and
// body are not used. A failure is an [*Error], with the code, message,
// issues and status a POST would have got, audited like one.
func (s *Site) Execute(hr *http.Request, c Call) (CallResult, error) {
	p, r := s.route(hr, c.Page, http.MethodPost)
	if p == nil {
		return CallResult{}, newError(protocol.CodeNotFound, "no Affordances graph at this path")
	}
	transport := c.Transport
	if transport == "" {
		transport = TransportOther
	}
	h := http.Header{}
	call, out, e := s.execute(h, r, p, transport, func(d *decoded) *Error {
		d.idemKey = idempotencyKeyOf(r) // the request's, unless the call brings its own
		return d.takeCall(c)
	})
	if e != nil {
		return CallResult{}, e
	}
	call.auditCall(http.StatusOK, "ok")
	return CallResult{Delta: out.delta, Header: h, Replayed: out.replayed}, nil
}

// ReadGraph returns the graph of the page at path for the caller of hr, as
// a GET of the page with the media type would, through transport (empty is
// TransportOther). The graph is built for the door, never encoded and
// parsed again; its entities are the page's own values. A failure is an
// [*Error].
func (s *Site) ReadGraph(hr *http.Request, path string, transport Transport) (*protocol.Graph, error) {
	if transport == "" {
		transport = TransportOther
	}
	p, r := s.route(hr, path, http.MethodGet)
	if p == nil {
		return nil, newError(protocol.CodeNotFound, "no Affordances graph at this path")
	}
	start := time.Now()
	pr, g, e := s.pageGraph(r, p)
	if s.opts.Observer != nil {
		var mode protocol.AuthMode
		if pr != nil {
			mode = pr.Caller.Mode
		}
		n := 0
		if e == nil {
			b, _ := g.MarshalJSON() // only for the Observer's size: the door encodes it its own way
			n = len(b)
		}
		s.observeGraph(r.Context(), p, transport, mode, start, n, e)
	}
	if e != nil {
		return nil, e
	}
	return &g, nil
}

// NewRequest finds the caller of hr as the site's pages do, for a
// transport that needs it before a call (to list what the caller may see
// with [Site.Index]). A rejected bearer token is an [*Error]
// (unauthorized); so is a failure of the Authenticator (internal).
func (s *Site) NewRequest(hr *http.Request) (*Request, error) {
	r, e := s.authenticate(hr)
	if e != nil {
		return nil, e
	}
	return r, nil
}

// NewPageRequest finds the caller of hr as the site's HTML door does, for
// a door that serves the person's own pages (the approval page): a cookie
// caller's [Request.Actor] is [ActorPerson] when hr is a browser's
// navigation (a page opened, a form submitted), and [ActorSessionAgent]
// when a script sent it. Errors are those of [Site.NewRequest].
func (s *Site) NewPageRequest(hr *http.Request) (*Request, error) {
	r, e := s.authenticate(hr)
	if e != nil {
		return nil, e
	}
	r.byPerson = navigation(hr)
	return r, nil
}

// AllActions returns every route and its actions, whoever may see them
// (but people-only actions, which no agent door lists), for a transport
// that prepares its own descriptions once. It freezes the
// site, as a first request does.
func (s *Site) AllActions() []protocol.IndexRoute {
	s.freeze()
	out := make([]protocol.IndexRoute, 0, len(s.pages))
	for _, p := range s.pages {
		ir := protocol.IndexRoute{Route: p.route, Description: p.opts.Description,
			Actions: make([]protocol.ActionSummary, 0, len(p.actions))}
		for _, a := range p.actions {
			if !a.meta.PeopleOnly {
				ir.Actions = append(ir.Actions, a.summary)
			}
		}
		out = append(out, ir)
	}
	return out
}

// route finds the page of a path and returns a request for it: hr's
// caller, method and credentials, the path's URL, the page's pattern and
// its path values. The page is found by the site's own ServeMux of
// patterns (the one that checked them at registration), so that a path
// matches the page it would match as a request, by the same rules of
// precedence; nothing is served to find it. The path values are read as
// the mux reads them (route.PathValues).
func (s *Site) route(hr *http.Request, path, method string) (*Page, *http.Request) {
	u, err := url.Parse(path)
	if err != nil || u.Scheme != "" || u.Host != "" || len(u.Path) == 0 || u.Path[0] != '/' {
		return nil, nil
	}
	s.freeze()
	r := hr.Clone(hr.Context())
	r.Method = method
	r.URL = u
	r.RequestURI = u.RequestURI()
	r.Body = http.NoBody
	r.ContentLength = 0
	h, _ := s.check.Handler(r)
	ref, ok := h.(pageRef)
	if !ok {
		return nil, nil // no page, or a path the mux would redirect (unclean, a mount's)
	}
	r.Pattern = ref.pattern
	if !route.PathValues(ref.pattern, r.URL.EscapedPath(), r.SetPathValue) {
		return nil, nil
	}
	return ref.Page, r
}

// pageRef is how a page is registered on the site's check mux: route
// reads the page back from the handler the mux finds. It is never served.
type pageRef struct{ *Page }

func (pageRef) ServeHTTP(w http.ResponseWriter, r *http.Request) { http.NotFound(w, r) }

// freeze ends registration: the first request, or the first use of the
// site by another transport, does it. Later calls only read the flag, so
// that the doors that call it per request do not write a shared word.
func (s *Site) freeze() {
	if !s.started.Load() {
		s.started.Store(true)
	}
}

// MaxBodyBytes returns the limit on the body of a call (Options.Limits.MaxBodyBytes
// with its default), for a door that reads bodies of its own, so that
// every door refuses the same sizes.
func (s *Site) MaxBodyBytes() int64 { return s.opts.Limits.MaxBodyBytes }
