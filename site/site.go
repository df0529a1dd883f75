package site

import (
	"errors"
	"fmt"
	"html/template"
	"log/slog"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site/ratelimit"
)

// Options configure a [Site]. The zero value is a working site with no
// authentication.
type Options struct {
	// Name is the site's name in its index.
	Name string
	// Auth reports who made each request. When nil, no bearer token is
	// accepted and any cookie makes a request cookie-authenticated.
	Auth Authenticator
	// AuthModes lists the ways agents can authenticate, for the site index.
	AuthModes []protocol.AuthMode
	// MCP is the URL of the site's MCP endpoint, for the site index.
	MCP string
	// NotFound answers browsers for pages that do not exist. Default:
	// http.NotFound.
	NotFound http.Handler
	// SignInReason is the reason graphs give for session and confirm
	// actions to callers without a session. Default: "sign in first".
	SignInReason string
	// NoCookiesReason is the reason given for an action that NeedsCookies
	// to a caller whose door keeps no cookies. Default: it says to
	// authenticate with a bearer token.
	NoCookiesReason string
	// GraphTokenLimit is the size, in tokens estimated as bytes/4, above
	// which a route's graph is logged as too large, once per route.
	// Default: 2000.
	GraphTokenLimit int
	// Logger receives warnings and errors. Default: slog.Default().
	Logger *slog.Logger
	// AuditLogger receives one record per call, by any transport.
	// Default: Logger.
	AuditLogger *slog.Logger

	// Origins lists the origins ("https://shop.example") that cookie
	// calls may come from. Default: the request's own scheme and host,
	// the scheme being https when the connection is TLS. Behind a proxy
	// that terminates TLS, list the public origin here.
	Origins []string
	// MaxBodyBytes limits the body of a call. Default: 1 MiB.
	MaxBodyBytes int64
	// Limiter counts calls per caller, route and action. Default: an
	// in-memory GCRA limiter.
	Limiter ratelimit.Limiter
	// DefaultLimit applies to actions that set no Limit of their own.
	// Default: 120 calls a minute with a burst of 30.
	DefaultLimit ratelimit.Limit
	// LimiterFailClosed denies calls (429, Retry-After: 1) when the
	// limiter fails. By default such calls are allowed, the failure is
	// logged and counted in [Site.LimiterFaults]: a broken limiter must
	// not take the site down.
	LimiterFailClosed bool
	// ClientAddr returns the address that keys the rate limit of
	// anonymous callers. Default: the host of r.RemoteAddr, or, when that
	// is one of TrustedProxies, the rightmost address of X-Forwarded-For
	// that is not.
	ClientAddr func(r *http.Request) string
	// TrustedProxies lists the networks of the reverse proxies in front
	// of the site (such as 127.0.0.1/32 for nginx on the same host). Only
	// a connection from one of them has its X-Forwarded-For read, from
	// the right, skipping the proxies' own addresses: a client cannot
	// choose its address by sending the header itself. Default: none, and
	// the connection's address is the client's.
	TrustedProxies []netip.Prefix
	// ConfirmView renders the page a person sees before a confirm action
	// posted from a form runs, from a [ConfirmData]. Default: a plain
	// built-in page.
	ConfirmView *template.Template

	// RequireApproval makes every confirm action need the person's
	// approval on the site (see [Approval]); Action.RequireApproval does
	// it for one action.
	RequireApproval bool
	// Approvals keeps approvals. Default: in memory, for one instance.
	Approvals ApprovalStore
	// ApprovalTTL is how long an approval can be given and used. Default:
	// 10 minutes.
	ApprovalTTL time.Duration
	// ApprovalPath is where approval pages are served: ApprovalPath + id.
	// Default: /approvals/.
	ApprovalPath string
	// SignInURL is where the approval page sends a person who is not
	// signed in. Default: none; the page asks them to sign in.
	SignInURL string
	// ApprovalView renders the approval page from an [ApprovalData].
	// Default: a plain built-in page.
	ApprovalView *template.Template

	// Inspector serves a page for the site's authors at [InspectorPath]:
	// any page of the site and its graph side by side, the graph's
	// estimated tokens, each action's schemas and availability for the
	// person looking, and a form that runs an action through the normal
	// pipeline. It follows the site's authentication and Origin rules,
	// and shows only what that person may see. Off by default, and then
	// the path does not exist; turn it on in development only.
	Inspector bool

	// Idempotency keeps the Idempotency-Key of calls (see
	// [IdempotencyStore]). Default: in memory, for one instance.
	Idempotency IdempotencyStore
	// IdempotencyTTL is how long a key's outcome is kept and replayed.
	// Default: 24 hours.
	IdempotencyTTL time.Duration

	// Observer is told about every call and graph read, with the time of
	// each pipeline step (see [Observer]; package site/siteotel reports
	// them to OpenTelemetry). Default: none, and no clock is read for it.
	Observer Observer
}

// Site is an Affordances site: an http.Handler serving pages to browsers
// and agents, and the site index at /.well-known/affordances.json.
//
// Register pages and actions first, then serve: the first request freezes
// the site, and registering after that panics.
type Site struct {
	opts    Options  // with every default applied, by New
	origins []string // Options.Origins, normalised

	pages   []*Page
	check   *http.ServeMux // validates patterns as pages are registered
	started atomic.Bool
	own     *handler // the site's own handler, with no wrapped app

	warned        sync.Map // route -> struct{}: graphs already reported as too large
	limiterFaults atomic.Int64
	faultLog      faultLog // limiter faults are logged once per burst

	mounts []mount // handlers of other transports, such as the MCP endpoint

	transportOnce sync.Once
	transportMux  *http.ServeMux // path -> page, for other transports (transport.go)
}

// New returns an empty site. It applies the defaults of [Options] once,
// and panics on an option that cannot work (an origin that is not one, an
// invalid default limit), like the other registration errors.
func New(opts Options) *Site {
	s := &Site{opts: withDefaults(opts), check: http.NewServeMux()}
	for _, o := range opts.Origins {
		n, ok := normalizeOrigin(o)
		if !ok {
			panic(fmt.Sprintf("site: Options.Origins: %q is not an origin such as https://shop.example", o))
		}
		s.origins = append(s.origins, n)
	}
	if err := s.opts.DefaultLimit.Valid(); err != nil {
		panic("site: Options.DefaultLimit: " + err.Error())
	}
	s.own = &handler{site: s}
	return s
}

// withDefaults fills in every option left at its zero value.
func withDefaults(o Options) Options {
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.AuditLogger == nil {
		o.AuditLogger = o.Logger
	}
	if o.NotFound == nil {
		o.NotFound = http.NotFoundHandler()
	}
	if o.SignInReason == "" {
		o.SignInReason = "sign in first"
	}
	if o.NoCookiesReason == "" {
		o.NoCookiesReason = "this action keeps its result in a browser cookie, which this connection cannot hold: authenticate with a bearer token instead"
	}
	if o.GraphTokenLimit <= 0 {
		o.GraphTokenLimit = 2000
	}
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = 1 << 20
	}
	if o.Limiter == nil {
		o.Limiter = ratelimit.NewMemory(nil)
	}
	if o.DefaultLimit == (ratelimit.Limit{}) {
		o.DefaultLimit = ratelimit.PerMinute(120, 30)
	}
	if o.ConfirmView == nil {
		o.ConfirmView = defaultConfirmView
	}
	if o.Approvals == nil {
		o.Approvals = NewMemoryApprovals()
	}
	if o.Idempotency == nil {
		o.Idempotency = NewMemoryIdempotency()
	}
	if o.IdempotencyTTL <= 0 {
		o.IdempotencyTTL = 24 * time.Hour
	}
	if o.ApprovalTTL <= 0 {
		o.ApprovalTTL = 10 * time.Minute
	}
	if o.ApprovalPath == "" {
		o.ApprovalPath = "/approvals/"
	}
	if !strings.HasSuffix(o.ApprovalPath, "/") {
		o.ApprovalPath += "/"
	}
	if o.ApprovalView == nil {
		o.ApprovalView = defaultApprovalView
	}
	return o
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

// Mount serves h at path beside the site's pages, such as an MCP endpoint
// (package site/mcp mounts itself with it). The path is a ServeMux pattern
// without method or host; it must not conflict with a page. Like Page, it
// panics after the site started serving.
func (s *Site) Mount(path string, h http.Handler) {
	if s.started.Load() {
		panic("site: Mount(" + path + ") after the site started serving")
	}
	if !strings.HasPrefix(path, "/") || h == nil {
		panic(fmt.Sprintf("site: Mount(%q): the path must start with / and the handler must not be nil", path))
	}
	s.checkPattern(path, callerLocation())
	s.mounts = append(s.mounts, mount{path, h})
}

// Name returns the site's name, as its index gives it.
func (s *Site) Name() string { return s.opts.Name }

// SetMCP sets the MCP endpoint the site index lists, as Options.MCP does;
// package site/mcp calls it when it mounts itself.
func (s *Site) SetMCP(url string) {
	if s.started.Load() {
		panic("site: SetMCP after the site started serving")
	}
	s.opts.MCP = url
}

// LimiterFaults returns how many calls the limiter failed to decide on
// since the site started.
func (s *Site) LimiterFaults() int64 { return s.limiterFaults.Load() }

// ServeHTTP serves the site's pages and index; everything else is 404.
func (s *Site) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.own.ServeHTTP(w, r) }

// Wrap puts the site in front of an existing application. Agents' requests
// for registered pages, the site index, and HTML requests for pages that
// have their own View are served by the site; everything else goes to next.
// HTML requests for a registered page without a View also go to next,
// with Vary: Accept and the Link header that advertises the page's graph.
// An agent's request for a path that has no graph gets a not_found delta,
// never the application's HTML.
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
	h.mux.ServeHTTP(w, r)
}

func (h *handler) build() {
	s := h.site
	s.started.Store(true)
	mux := http.NewServeMux()
	catchAll := true
	for _, p := range s.pages {
		mux.Handle(p.pattern, &pageHandler{page: p, next: h.next})
		if strings.Count(p.pattern, "/") == 1 && strings.HasSuffix(p.pattern, "...}") {
			catchAll = false // "/{path...}" already matches every path
		}
	}
	mux.HandleFunc(protocol.WellKnownPath, s.serveIndex)
	if s.needsApprovals() {
		mux.HandleFunc(s.opts.ApprovalPath+"{id}", s.serveApproval)
	}
	if s.opts.Inspector {
		mux.HandleFunc(InspectorPath, s.serveInspector)
		mux.HandleFunc("GET "+InspectorPath+".css", s.serveInspectorCSS)
	}
	for _, m := range s.mounts {
		mux.Handle(m.pattern, m.h)
	}
	if catchAll {
		mux.HandleFunc("/", h.unmatched)
	}
	h.mux = mux
}

// unmatched answers a path no page matches: a not_found delta to agents,
// the application (or the site's 404) to everyone else, with Vary: Accept
// since the two differ at the same URL.
func (h *handler) unmatched(w http.ResponseWriter, r *http.Request) {
	if wantsGraph(r) || (r.Method == http.MethodPost && postIsCall(r)) {
		writeFailure(w, r, newError(protocol.CodeNotFound, "no Affordances graph at this path"))
		return
	}
	w.Header().Add("Vary", "Accept")
	if h.next != nil {
		h.next.ServeHTTP(w, r)
		return
	}
	h.site.opts.NotFound.ServeHTTP(w, r)
}

// pageHandler serves one page.
type pageHandler struct {
	page *Page
	next http.Handler
}

func (ph *pageHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p := ph.page
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		if wantsGraph(r) {
			p.site.serveGraph(w, r, p)
			return
		}
		if p.opts.View != nil {
			p.site.serveHTML(w, r, p)
			return
		}
		if ph.next != nil {
			advertise(w.Header())
			ph.next.ServeHTTP(w, r)
			return
		}
		w.Header().Add("Vary", "Accept")
		http.Error(w, "This page is served to agents only: ask for "+protocol.MediaType+".", http.StatusNotAcceptable)
	case http.MethodPost:
		switch {
		case postIsCall(r):
			p.site.serveAgentCall(w, r, p)
		case p.opts.View == nil && ph.next != nil:
			ph.next.ServeHTTP(w, r) // the application renders this page and handles its forms
		case isForm(r):
			p.site.serveFormCall(w, r, p)
		case wantsGraph(r):
			writeFailure(w, r, newError(protocol.CodeInvalidInput,
				"a call must be sent with Content-Type: "+protocol.MediaType))
		default:
			http.Error(w, "unsupported Content-Type: post an HTML form or an Affordances call", http.StatusUnsupportedMediaType)
		}
	default:
		w.Header().Set("Allow", "GET, HEAD, POST")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
	}
}

// advertise adds the headers of an HTML response for a page with a graph.
func advertise(h http.Header) {
	addVaryAccept(h)
	h.Set("Link", `<?affordances=1>; rel="affordances"`)
}

// authenticate finds the caller of a request and returns the Request that
// loaders and actions see. A request that carries a bearer token is
// authenticated by it alone: a rejected token is unauthorized (401), never
// a fall back to the cookie. Any other failure of the Authenticator is
// internal and logged.
func (s *Site) authenticate(hr *http.Request) (*Request, *Error) {
	if MalformedBearer(hr) {
		return nil, newBadTokenError()
	}
	c, err := s.authenticator().Authenticate(hr)
	if err == nil {
		if _, bearer := BearerToken(hr); bearer && c.Mode != protocol.AuthBearer {
			err = ErrBadToken
		}
	}
	switch {
	case err == nil:
		return &Request{Request: withoutAffordancesQuery(hr), Caller: c}, nil
	case errors.Is(err, ErrBadToken):
		return nil, newBadTokenError()
	default:
		s.opts.Logger.ErrorContext(hr.Context(), "affordances: authenticator failed", "path", hr.URL.Path, "err", err)
		return nil, newInternalError()
	}
}

// writeFailure answers an agent's request that failed with a delta, with
// the headers the failure needs.
func writeFailure(w http.ResponseWriter, r *http.Request, e *Error) {
	e.setHeaders(w.Header())
	writeDelta(w, r, e.Status(), e.delta())
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
