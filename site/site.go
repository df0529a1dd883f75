package site

import (
	"context"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/affordances-go/affordances/internal/admission"
	"github.com/affordances-go/affordances/internal/advertise"
	"github.com/affordances-go/affordances/internal/bearer"
	"github.com/affordances-go/affordances/internal/negotiate"
	"github.com/affordances-go/affordances/internal/peer"
	"github.com/affordances-go/affordances/internal/respond"
	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site/idempotency"
)

// Site is an Affordances site: an http.Handler serving pages to browsers
// and agents, and the site index at /.well-known/affordances.json.
//
// Register pages and actions first, then serve: the first request freezes
// the site, and registering after that panics.
type Site struct {
	opts    Options  // with every default applied, by New
	origins []string // Options.Security.Origins, normalised

	pages     []*Page
	check     *http.ServeMux // checks patterns as they are registered, and finds a path's page (route)
	keysAfter bool           // the key store is optimistic: keys are read only after a failed call
	started   atomic.Bool
	own       *handler // the site's own handler, with no wrapped app

	warned        sync.Map // route -> struct{}: graphs already reported as too large
	limiterFaults atomic.Int64
	faultLog      faultLog // limiter faults are logged once per burst

	httpsOrigins bool // every configured origin is https (see Secure)

	admission *admission.Slots // Options.Limits.MaxInFlight: calls past it are shed

	mounts   []mount   // handlers of the extensions' doors, and the application's mounts
	listings []Listing // what the discovery says of the extensions' doors

	gates   [stages][]Gate              // the extensions' checks at step 6, by stage, in their order
	scripts template.HTML               // the extensions' script tags, for every rendered page
	heads   []func(*View) template.HTML // what extensions add to each rendered page's head (Extender.Head)
	values  sync.Map                    // what extensions keep on the site (Extender.SetValue)

	crossOrigin []*http.CrossOriginProtection // bypassed for the site's pages (BypassCrossOrigin)
}

// New returns an empty site with its extensions plugged in (see
// [Extension]), in their order. It applies the defaults of [Options]
// once, and panics on an option that cannot work (an origin that is not
// one, an invalid default limit), like the other registration errors.
func New(opts Options, exts ...Extension) *Site {
	s := &Site{opts: withDefaults(opts), check: http.NewServeMux()}
	s.admission = admission.New(s.opts.Limits.MaxInFlight, s.opts.Limits.MaxQueued, s.opts.Limits.QueueWait)
	if o, ok := s.opts.Idempotency.Store.(idempotency.Optimistic); ok {
		s.keysAfter = o.ClaimsOnCommit()
	}
	for _, o := range opts.Security.Origins {
		n, ok := peer.NormalizeOrigin(o)
		if !ok {
			panic(fmt.Sprintf("site: Options.Security.Origins: %q is not an origin such as https://shop.example", o))
		}
		s.origins = append(s.origins, n)
	}
	s.httpsOrigins = allHTTPS(s.origins)
	if err := s.opts.Limits.Default.Valid(); err != nil {
		panic("site: Options.Limits.Default: " + err.Error())
	}
	if n := len(opts.Idempotency.Secret); n > 0 && n < 16 {
		panic(fmt.Sprintf("site: Options.Idempotency.Secret: %d bytes; it takes at least 16 (32 random bytes is the default)", n))
	}
	s.own = &handler{site: s}
	s.Extend(exts...)
	return s
}

// authenticator returns the site's Authenticator, or the default one.
func (s *Site) authenticator() Authenticator {
	if s.opts.Auth == nil {
		return defaultAuth{}
	}
	return s.opts.Auth
}

// mount is a handler served beside the pages.
type mount struct {
	pattern string
	h       http.Handler
}

// Mount serves h at path beside the site's pages (an extension's door
// adds itself with [Extender.Door], and lists itself with
// [Extender.List]). The path is a ServeMux pattern
// without method or host; it must not conflict with a page. Like Page, it
// panics after the site started serving.
func (s *Site) Mount(path string, h http.Handler) {
	if s.started.Load() {
		panic("site: Mount(" + path + ") after the site started serving")
	}
	if !strings.HasPrefix(path, "/") || h == nil {
		panic(fmt.Sprintf("site: Mount(%q): the path must start with / and the handler must not be nil", path))
	}
	s.checkPattern(path, callerLocation(), http.NotFoundHandler())
	s.mounts = append(s.mounts, mount{path, h})
}

// Name returns the site's name, as its index gives it.
func (s *Site) Name() string { return s.opts.Name }

// LimiterFaults returns how many calls the limiter failed to decide on,
// or decided degraded (ratelimit.Decision.Degraded: a degrading
// limiter's local share while the shared one is down), since the site
// started.
func (s *Site) LimiterFaults() int64 { return s.limiterFaults.Load() }

// ServeHTTP serves the site's pages and index; everything else is 404.
func (s *Site) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.own.ServeHTTP(w, r) }

// Wrap puts the site in front of an existing application. The site
// serves only what is its own: an agent's GET of a registered page (the
// graph), an Affordances call (a POST with the media type), a form of the
// library (a POST whose FormActionField names an action of the page), the
// site index, its approval pages and its mounts, a request of another
// method that asks for an Affordances document (405 with Allow, as on any
// page), and pages that have their own View, whole. On the other pages,
// which the application renders, everything else reaches next unchanged:
// other methods (DELETE, PUT, PATCH, OPTIONS…), the application's own
// forms and method overrides, its REST API on the same URLs, with the body
// intact.
//
// A browser's GET of a registered page without a View is served by next,
// with Vary: Accept; the Link header that announces the graph is added
// only when next answers it with a successful HTML page, not to its JSON,
// its redirects or its errors. An agent's request for a path that has no
// graph gets a not_found delta, never the application's HTML.
func (s *Site) Wrap(next http.Handler) http.Handler {
	if next == nil {
		panic("site: Wrap(nil)")
	}
	return &handler{site: s, next: next}
}

// handler serves a site, optionally in front of an application. Its
// ServeMux is built on the first request, when registration is over.
type handler struct {
	site *Site
	next http.Handler
	once sync.Once
	mux  *http.ServeMux
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.once.Do(h.build)
	h.site.setHSTS(w, r)
	h.mux.ServeHTTP(w, r)
}

func (h *handler) build() {
	s := h.site
	s.freeze()
	mux := http.NewServeMux()
	catchAll := true
	for _, p := range s.pages {
		ph := &pageHandler{page: p, next: h.next}
		ph.byAnswer = ph.handlers()
		mux.Handle(p.pattern, ph)
		if strings.Count(p.pattern, "/") == 1 && strings.HasSuffix(p.pattern, "...}") {
			catchAll = false // "/{path...}" already matches every path
		}
	}
	mux.Handle(protocol.WellKnownPath, s.middleware(http.HandlerFunc(s.serveIndex), false))
	for path, file := range s.discoveryFiles() {
		mux.Handle("GET "+path, s.serveDiscovery(file))
	}
	if s.needsApprovals() && len(s.gates[StageApproval]) == 0 {
		s.opts.Logger.Error("affordances: some actions need the person's approval, and the site has no approval gate: their agents' calls will fail until one is plugged in (docs/architecture.md)")
	}
	for _, m := range s.mounts {
		mux.Handle(m.pattern, s.middleware(m.h, false))
	}
	if catchAll {
		mux.HandleFunc("/", h.unmatched)
	}
	h.mux = mux
}

// unmatched answers a path no page matches: a not_found delta to agents,
// the application (or the site's 404) to everyone else, as it is. It
// adds no Vary: the agent's delta is never stored (private, no-store), so
// a shared cache can keep one copy of a static file or a 404 for all.
func (h *handler) unmatched(w http.ResponseWriter, r *http.Request) {
	if negotiate.Graph(r) || (r.Method == http.MethodPost && negotiate.Call(r)) {
		writeFailure(w, r, newError(protocol.CodeNotFound, "no Affordances graph at this path"))
		return
	}
	if h.next != nil {
		h.next.ServeHTTP(w, r)
		return
	}
	h.site.opts.NotFound.ServeHTTP(w, r)
}

// authenticate finds the caller of a request and returns the Request that
// loaders and actions see. A request that carries a bearer token is
// authenticated by it alone: a rejected token is unauthorized (401), never
// a fall back to the cookie. Any other failure of the Authenticator is
// internal and logged.
func (s *Site) authenticate(hr *http.Request) (*Request, *Error) {
	_, bearerSent, malformed := bearer.Parse(hr) // the header, read once
	if malformed {
		return nil, newBadTokenError()
	}
	// The agent's signature first: the authenticator may read who signed
	// (VerifiedAgent), to record it or to bind a token to its agent.
	agent := ""
	if s.opts.Agents != nil {
		var aerr error
		if agent, aerr = s.opts.Agents.VerifyAgent(hr); aerr != nil {
			return nil, newError(protocol.CodeUnauthorized, "the request's agent signature is not valid: "+aerr.Error())
		}
		if agent != "" {
			hr = hr.WithContext(context.WithValue(hr.Context(), agentKey{}, agent))
		}
	}
	c, err := s.authenticator().Authenticate(hr)
	if err == nil {
		if bearerSent && c.Mode != protocol.AuthBearer {
			err = ErrBadToken
		}
	}
	c.Agent = agent
	switch {
	case err == nil:
		req := negotiate.WithoutQuery(hr)
		if s.opts.CallerContext != nil {
			if ctx := s.opts.CallerContext(req, c); ctx != nil {
				req = req.WithContext(ctx)
			}
		}
		return &Request{Request: req, Caller: c, secure: s.Secure(hr)}, nil
	case errors.Is(err, ErrBadToken):
		return nil, newBadTokenError()
	default:
		return nil, s.failure(hr.Context(), "authenticator failed", err, "path", hr.URL.Path)
	}
}

type agentKey struct{}

// VerifiedAgent returns the agent whose signature the site verified on the
// request of ctx (Options.Agents), for an Authenticator that records it or
// binds a token to it; "" when the request was not signed.
func VerifiedAgent(ctx context.Context) string {
	a, _ := ctx.Value(agentKey{}).(string)
	return a
}

// writeFailure answers an agent's request that failed with a delta, with
// the headers the failure needs.
func writeFailure(w http.ResponseWriter, r *http.Request, e *Error) {
	e.setHeaders(w.Header())
	writeDelta(w, r, e.Status(), e.Delta())
}

// faultLog lets a burst of limiter faults (a Redis outage: every call
// fails) be logged once every faultLogEvery, with how many there were,
// rather than once per request.
type faultLog struct {
	mu    sync.Mutex
	last  time.Time
	count int
}

const faultLogEvery = 10 * time.Second

// due counts a fault and reports whether to log now, with the number of
// faults since the last report.
func (f *faultLog) due(now time.Time) (int, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.count++
	if !f.last.IsZero() && now.Sub(f.last) < faultLogEvery {
		return 0, false
	}
	n := f.count
	f.last, f.count = now, 0
	return n, true
}

// What a wrapped application keeps (see [Site.Wrap]): every request the
// site does not serve itself reaches it unchanged, and its answers gain
// only the headers that are true of them.

// advertiseGraph adds the headers of an HTML response for a page with a graph.
func advertiseGraph(h http.Header) {
	respond.VaryAccept(h)
	h.Set("Link", advertise.LinkValue)
}

// moreLinks are the Link values the HTML of a page with a graph gains
// beside the graph's: the site's AI catalog, when it serves one.
func (s *Site) moreLinks() []string {
	if s.servesCatalog() {
		return []string{catalogLink}
	}
	return nil
}

// catalogLink is the Link value of the AI catalog.
const catalogLink = `<` + AICatalogPath + `>; rel="ai-catalog"`

// postsLibraryForm reports whether a POST is a form of the library: a form
// whose FormActionField names an action of the page. Any other form (the
// application's own, a method override) belongs to the wrapped
// application. The body is read to find out, up to the site's body limit,
// and put back whole for whoever serves the request; a body over the limit
// is no form of the library.
func (p *Page) postsLibraryForm(r *http.Request) bool {
	if !isForm(r) {
		return false
	}
	name := advertise.PeekFormAction(r, FormActionField, p.site.opts.Limits.MaxBodyBytes)
	return name != "" && p.byName[name] != nil
}

// middleware wraps a handler the site serves itself in the application's
// middleware: Options.Middleware for every door, and Options.
// PersonMiddleware too for the person's HTML door (pages the site
// renders, the library's form posts). Built once, when the site starts.
func (s *Site) middleware(h http.Handler, person bool) http.Handler {
	if person && s.opts.PersonMiddleware != nil {
		h = s.opts.PersonMiddleware(h)
	}
	if s.opts.Middleware != nil {
		h = s.opts.Middleware(h)
	}
	return h
}
