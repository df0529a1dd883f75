// Package shop is the demo store: a small clothing shop that people use in
// a browser and agents operate through the same URLs, with the same
// sessions. It is built on package site and an embedded SQLite database.
package shop

import (
	"context"
	"embed"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site"
	"github.com/affordances-go/affordances/site/approval"
	"github.com/affordances-go/affordances/site/idempotency"
	"github.com/affordances-go/affordances/site/inspector"
	"github.com/affordances-go/affordances/site/mcp"
	"github.com/affordances-go/affordances/site/presence"
	"github.com/affordances-go/affordances/site/ratelimit"
	"github.com/affordances-go/affordances/site/webmcp"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// App is the shop's HTTP side.
type App struct {
	store     *Store
	site      *site.Site
	handler   http.Handler
	failures  *failures // failed sign-ins per account
	log       *slog.Logger
	approvals bool               // placeOrder and cancelOrder need the person's approval on the site
	csp       []string           // the Content-Security-Policy header's value
	origins   []string           // the public origins (Options.Origins), for absolute URLs
	passkeys  *presence.Passkeys // nil when the shop has no origin for passkeys
}

// Options configure the shop.
type Options struct {
	// Logger receives the shop's logs and audit records.
	Logger *slog.Logger
	// Origins overrides the origins cookie calls may come from (default:
	// the request's own).
	Origins []string
	// TrustedProxies lists the reverse proxies whose X-Forwarded-For names
	// the client (see site.Options.Security.TrustedProxies). Default: none.
	TrustedProxies []netip.Prefix
	// DefaultLimit overrides the site's default rate limit per caller and
	// action (benchmarks raise it).
	DefaultLimit ratelimit.Limit
	// Limiter counts calls; several instances share one (Redis). Default:
	// in memory. LimiterFailClosed denies calls while it fails.
	Limiter           ratelimit.Limiter
	LimiterFailClosed bool
	// NoApprovals starts the shop with plain v0 confirmation everywhere:
	// placeOrder and cancelOrder then run for an agent on confirm: true,
	// without the person's approval on the site (for tools and benchmarks
	// that exercise v0 alone).
	NoApprovals bool
	// Observer is told about every call and graph read (see
	// NewTelemetry).
	Observer site.Observer
	// Agents verifies agents' signatures (Web Bot Auth, package botauth);
	// nil serves signed requests as unsigned ones.
	Agents site.AgentVerifier
	// Idempotency keeps the calls' Idempotency-Keys. Default: the store's
	// database (Store.IdempotencyKeys), where actions commit them.
	Idempotency idempotency.Store
	// MCPApprovalWait bounds how long an MCP call waits for the person's
	// decision on the approval page once the host opened it (see
	// mcp.Options.ApprovalWait). Default: 2 minutes.
	MCPApprovalWait time.Duration
	// MCPLean lists three MCP tools (readPage, siteIndex, callAction)
	// instead of one per action (mcp.Options.Lean).
	MCPLean bool
	// MaxInFlight bounds the calls run at once (site.Options.Limits.MaxInFlight):
	// past it calls answer 503 at once.
	MaxInFlight int
	// MaxQueued is how many calls past MaxInFlight wait for a slot
	// (site.Options.Limits.MaxQueued). Default 0: a queue absorbs bursts, but
	// under a sustained overload it only makes every admitted call
	// slower (examples/shop/overload measures both).
	MaxQueued int
	// LeanMCPPath, when set, also serves a lean MCP endpoint there, beside
	// /mcp, for comparing the two on one store (the task benchmark).
	LeanMCPPath string
	// PasskeyOrigins are the origins people use passkeys from; the host
	// of the first is the passkeys' RP ID, which must be a domain
	// (http://localhost:8080 in development, never an IP address).
	// Default: Origins; with neither, people cannot add passkeys and
	// everything works as for an account without one.
	PasskeyOrigins []string
	// Secret keys what the shop must not keep in its database in a form a
	// guess can test: the fingerprints of keyed calls (a sign-in's
	// password among their input; site.Options.Idempotency.Secret). At
	// least 16 bytes, the same on every instance of one database.
	// Default: random per process (see the command's -secret-file).
	Secret []byte
	// Dev turns on the site's inspector (inspector.Path) and lets the
	// shop's pages be framed by itself, which the inspector needs. For
	// development only.
	Dev bool
}

// hsts is the shop's Strict-Transport-Security: a year when every public
// origin is https (behind a proxy that ends TLS), else none.
func hsts(origins []string) time.Duration {
	for _, o := range origins {
		if !strings.HasPrefix(o, "https://") {
			return 0
		}
	}
	if len(origins) == 0 {
		return 0
	}
	return 365 * 24 * time.Hour
}

// New builds the shop over a store.
func New(store *Store, opts Options) *App {
	a := &App{store: store, failures: newFailures(store.now), log: opts.Logger, approvals: !opts.NoApprovals, origins: opts.Origins}
	frames := "'none'"
	if opts.Dev {
		frames = "'self'" // the inspector shows the pages in a frame
	}
	a.csp = []string{"default-src 'self'; img-src 'self' data:; style-src 'self'; form-action 'self'; frame-ancestors " + frames}[:1:1]
	if a.log == nil {
		a.log = slog.Default()
	}
	var err error
	if a.passkeys, err = newPasskeys(store, opts, a.log, a.checkPasskeyForm); err != nil {
		panic("shop: " + err.Error())
	}
	a.site = site.New(site.Options{
		Name: "Heavyweight Supply",
		// The discovery files (llms.txt, the AI catalog, the MCP server
		// card) come from the index; these are what a person might ask.
		Discovery: site.DiscoveryOptions{
			Description: "Heavyweight Supply sells heavyweight cotton tees and sweatshirts; agents browse, fill the cart and order for a person.",
			Queries:     []string{"buy a black heavyweight t-shirt in size M", "which sizes of the heavyweight tee are in stock", "track or cancel my last order"},
		},
		Auth:      site.AuthFunc(a.authenticate),
		AuthModes: []protocol.AuthMode{protocol.AuthCookie, protocol.AuthBearer},
		Logger:    opts.Logger,
		Limits: site.LimitOptions{Default: opts.DefaultLimit, Limiter: opts.Limiter, FailClosed: opts.LimiterFailClosed,
			MaxInFlight: opts.MaxInFlight, MaxQueued: opts.MaxQueued},
		Security:    site.SecurityOptions{Origins: opts.Origins, TrustedProxies: opts.TrustedProxies, HSTS: hsts(opts.Origins)},
		Idempotency: site.IdempotencyOptions{Store: opts.idempotency(store), Secret: opts.Secret},
		// A person grants a token some actions, and orders in advance, on
		// the account page (grants.go).
		Grants:   site.GrantOptions{Page: "/account", Scopes: grantActions, StandingActions: []string{"placeOrder"}},
		NotFound: http.HandlerFunc(a.notFound),
		ConfirmView: template.Must(template.New("confirm.html").Funcs(site.Funcs()).Funcs(funcs).
			ParseFS(templateFS, "templates/layout.html", "templates/confirm.html")),
		Observer: opts.Observer,
		Agents:   opts.Agents,
	},
		// Agents in the person's browser see the actions as WebMCP tools.
		webmcp.Extension,
		site.ExtensionFunc(func(x *site.Extender) {
			// An order a token's standing approval covers runs at once (grants.go).
			x.Gate(site.StageStanding, a.standingGate)
			// Without a passkey, what only the person may do needs a recent
			// sign-in with the password (recent.go).
			x.Gate(site.StagePresence, a.recentGate)
		}))
	if a.approvals {
		// The person approves an agent's order on the site itself.
		ao := &approval.Options{Store: store.Approvals(), SignInURL: "/login", Logger: opts.Logger, PasskeysURL: "/account#passkeys",
			// Without a passkey, approving needs a recent sign-in (recent.go).
			Check: func(r *site.Request) error { return a.recentSignIn(r, "approve an agent's request") },
			View: template.Must(template.New("approval.html").Funcs(site.Funcs()).Funcs(funcs).
				ParseFS(templateFS, "templates/layout.html", "templates/approval.html"))}
		if a.passkeys != nil {
			ao.Presence = a.passkeys // the person confirms an approval with their passkey
		}
		approval.Mount(a.site, ao)
	}
	if a.passkeys != nil {
		presence.Mount(a.site, a.passkeys)
	}
	a.register()
	// Agents in MCP hosts reach the same actions at /mcp.
	mcp.Mount(a.site, "/mcp", &mcp.Options{Logger: a.log, ApprovalWait: opts.MCPApprovalWait, Lean: opts.MCPLean})
	if opts.LeanMCPPath != "" {
		a.site.Mount(opts.LeanMCPPath, mcp.Handler(a.site, &mcp.Options{Logger: a.log, ApprovalWait: opts.MCPApprovalWait, Lean: true}))
	}
	if opts.Dev {
		inspector.Mount(a.site)
	}
	assets := http.NewServeMux()
	assets.Handle("/static/", a.staticFiles())
	assets.HandleFunc("/", a.notFound)
	assets.HandleFunc("GET /healthz", a.health)
	assets.HandleFunc("GET /favicon.ico", favicon) // what browsers ask for without a link
	assets.HandleFunc("GET /robots.txt", a.robots)
	assets.HandleFunc("GET /sitemap.xml", a.sitemap)
	assets.HandleFunc("GET /images/{slug}", a.productImage)
	assets.HandleFunc("GET /images/{slug}/{colour}", a.productImage)
	a.handler = a.site.Wrap(assets) // pages by the site; stylesheet and 404s by the mux
	return a
}

// ServeHTTP serves the shop.
func (a *App) ServeHTTP(w http.ResponseWriter, r *http.Request) { a.serve(w, r, a.handler) }

// Wrap puts h behind the shop's own front: its security headers, and a
// log of every server error. Benchmarks put their hand-written handlers
// behind it, so that both sides of a comparison pay for it.
func (a *App) Wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { a.serve(w, r, h) })
}

// Security headers of every answer, shared rather than allocated per
// request; capacity equals length, so an append never writes to them.
var (
	nosniffValue  = []string{"nosniff"}[:1:1]
	referrerValue = []string{"same-origin"}[:1:1]
)

func (a *App) serve(w http.ResponseWriter, r *http.Request, next http.Handler) {
	h := w.Header()
	h["X-Content-Type-Options"] = nosniffValue
	h["Referrer-Policy"] = referrerValue
	h["Content-Security-Policy"] = a.csp
	sw := &statusWriter{ResponseWriter: w}
	next.ServeHTTP(sw, r)
	switch {
	case sw.status == http.StatusServiceUnavailable:
		// Shed load or a database away for a moment: an answer the
		// client retries, logged as a warning (the cause is logged where
		// it was met).
		a.log.WarnContext(r.Context(), "shop: service unavailable", "method", r.Method, "path", r.URL.Path, "status", sw.status)
	case sw.status >= 500:
		// Every other server error is logged, whoever answered it.
		a.log.ErrorContext(r.Context(), "shop: server error", "method", r.Method, "path", r.URL.Path, "status", sw.status)
	}
}

// health answers the load balancer: 200 when the database answers within
// a second, 503 otherwise, so that an instance that lost its database is
// taken out of rotation until it recovers by itself.
func (a *App) health(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	ctx, cancel := context.WithTimeout(r.Context(), time.Second)
	defer cancel()
	if err := a.store.Ping(ctx); err != nil {
		http.Error(w, "database unreachable", http.StatusServiceUnavailable)
		return
	}
	w.Write([]byte("ok\n"))
}

// favicon serves the store's icon (static/favicon.svg) at the address
// browsers ask for by default.
func favicon(w http.ResponseWriter, r *http.Request) {
	b, err := staticFS.ReadFile("static/favicon.svg")
	if err != nil {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "image/svg+xml")
	w.Header().Set("Cache-Control", "public, max-age=86400")
	w.Write(b)
}

// staticFiles serves the stylesheet and other files of static/. A path
// that names no file (a directory, an invalid or non-UTF-8 name, dot
// segments) is the shop's 404: directories are never listed.
func (a *App) staticFiles() http.Handler {
	static, _ := fs.Sub(staticFS, "static")
	files := http.FileServerFS(static)
	return http.StripPrefix("/static/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := r.URL.Path
		if !utf8.ValidString(name) || !fs.ValidPath(name) || name == "." {
			a.notFound(w, r)
			return
		}
		if st, err := fs.Stat(static, name); err != nil || st.IsDir() {
			a.notFound(w, r)
			return
		}
		files.ServeHTTP(w, r)
	}))
}

// statusWriter records the status of a response.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap gives http.ResponseController the writer underneath.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// Site returns the Affordances site behind the shop.
func (a *App) Site() *site.Site { return a.site }

// page parses one page template with the shared layout.
func page(name string) *template.Template {
	return template.Must(template.New("layout.html").Funcs(site.Funcs()).Funcs(funcs).
		ParseFS(templateFS, "templates/layout.html", "templates/"+name))
}

var funcs = template.FuncMap{
	"money": func(m Money) string { return m.String() },
	// capital starts a phrase with a capital letter.
	"capital": func(s string) string {
		if s == "" {
			return s
		}
		return strings.ToUpper(s[:1]) + s[1:]
	},
	"add": func(a, b int) int { return a + b },
	// imageColour is the colour a product page's picture shows.
	"imageColour": imageColour,
	// checkoutBasis makes the checkout's button the confirmation of the
	// cart it shows.
	"checkoutBasis": checkoutBasis,
	// colours and chosenSKU let colour links choose the picture and the
	// variant without JavaScript.
	"colours":   colourChoices,
	"chosenSKU": chosenSKU,
	// addressError is an issue about the address as a whole.
	"addressError": addressError,
	// addressFields draws the checkout's address form.
	"addressFields": addressFields,
	// ownForm reports whether a failed action's form is drawn by
	// actionForm, which shows the error itself: the page-wide alert is
	// then left out, so that the error reads once.
	"ownForm": func(action string) bool { return ownForms[action] },
	// recentMinutes is how recent a password sign-in must be for what
	// only the person may do without a passkey (recent.go).
	"recentMinutes": func() int { return int(recentWindow.Minutes()) },
}

// ownForms are the actions whose forms actionForm draws.
// createToken's form is written by hand (account.html): the layout says
// what went wrong with it, and the form marks its fields.
var ownForms = map[string]bool{"signIn": true, "signUp": true, "signOut": true}

var notFoundView = page("notfound.html")

func (a *App) notFound(w http.ResponseWriter, r *http.Request) {
	// An order exists only for its owner: a person who is not signed in
	// is sent to sign in rather than told there is nothing here.
	if strings.HasPrefix(r.URL.Path, "/orders/") {
		if c, err := a.authenticate(r); err == nil && !c.SignedIn {
			http.Redirect(w, r, "/login", http.StatusSeeOther)
			return
		}
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusNotFound)
	notFoundView.Execute(w, map[string]any{"Entities": a.headerEntities(r)})
}

func itoa(i int64) string { return strconv.FormatInt(i, 10) }

// headerEntities are the header's cart and account for a request that no
// page answers (the 404 page), so that it keeps the site's header. A
// failure shows an empty header rather than an error.
func (a *App) headerEntities(r *http.Request) map[string]any {
	m := map[string]any{}
	c, err := a.authenticate(r)
	if err != nil {
		return m
	}
	sr := &site.Request{Request: r, Caller: c}
	if cart, err := a.cartSummary(sr); err == nil {
		m[cartSummaryKey.Name()] = cart
	}
	if acc, err := accountOf(sr); err == nil {
		m[accountKey.Name()] = acc
	}
	return m
}

// NewServer is the store's HTTP server on addr, with the timeouts
// docs/deploy.md recommends: a slow client cannot hold a connection open
// by sending its headers or body slowly, nor by reading slowly. The MCP
// endpoint clears the write deadline for its own requests, which may wait
// for a person for longer than WriteTimeout.
func NewServer(addr string, h http.Handler) *http.Server {
	return &http.Server{
		Addr:              addr,
		Handler:           h,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       15 * time.Second,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       60 * time.Second,
		MaxHeaderBytes:    64 << 10,
	}
}

// idempotency is the store of keys: the option's, else the database's.
func (o Options) idempotency(s *Store) idempotency.Store {
	if o.Idempotency != nil {
		return o.Idempotency
	}
	return s.IdempotencyKeys()
}
