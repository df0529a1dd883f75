package site

import (
	"context"
	"crypto/rand"
	"html/template"
	"log/slog"
	"net/http"
	"net/netip"
	"time"

	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site/idempotency"
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
	// Agents, when set, verifies the signatures agents put on their
	// requests (Web Bot Auth; see package botauth): a verified agent is
	// Caller.Agent, a wrong signature is refused with 401 and its reason,
	// and an unsigned request is served as before.
	Agents AgentVerifier
	// CallerContext, when set, returns the context that the page's
	// loaders, guards, summaries and actions see, from the request and
	// the caller Auth found: the way to give the application's own code
	// its user (a service that checks permissions through a user in the
	// context). It runs for every request the site serves, whatever the
	// door (a page, a call, a form, MCP, an approval page); a nil result
	// keeps the request's context.
	CallerContext func(r *http.Request, c Caller) context.Context
	// AuthModes lists the ways agents can authenticate, for the site index.
	AuthModes []protocol.AuthMode
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
	// Logger receives warnings and errors. Default: slog.Default().
	Logger *slog.Logger
	// AuditLogger receives one record per call, by any transport.
	// Default: Logger.
	AuditLogger *slog.Logger

	// Middleware, when set, is the application's middleware (sessions
	// kept in the request's context, the user, a tenant, a request id),
	// run for every request the site serves itself, on every door: pages,
	// graphs, calls, forms, the index, the MCP endpoint and the approval
	// pages. What it puts in the context is there for Auth, CallerContext,
	// loaders, guards and actions, and an action changes the session
	// through the application's own session manager (scs's Put and
	// RenewToken, written by its LoadAndSave as the application writes
	// it). A wrapped application's own requests keep their own chain and
	// do not pass through it. Put no CSRF check here: agents' calls carry
	// no CSRF token; see PersonMiddleware. Default: none.
	Middleware func(http.Handler) http.Handler
	// PersonMiddleware, when set, runs inside Middleware for the person's
	// HTML door only: the pages the site renders and the library's form
	// posts. Put the application's CSRF protection here (nosurf,
	// gorilla/csrf), with its token in the library's forms (FormFields);
	// agents' calls keep the protocol's rules (Origin for cookies, bearer
	// exempt) and never meet it. Default: none.
	PersonMiddleware func(http.Handler) http.Handler
	// FormFields, when set, adds hidden fields to every form the library
	// writes (actionForm, the confirmation page), for the request the
	// page is rendered for, such as the application's CSRF token:
	// func(r) map[string]string{"csrf_token": nosurf.Token(r)}.
	FormFields func(r *http.Request) map[string]string
	// NoFormDoor turns the HTML form door off: a form posted to a page is
	// never run by the site, but passed to the wrapped application (which
	// keeps its own CSRF protection on it), or refused with 415 without
	// one; actionForm and ActionForm write nothing. Agents' calls (JSON,
	// MCP) are not affected. Default: the door is on.
	NoFormDoor bool
	// ConfirmView renders the page a person sees before a confirm action
	// posted from a form runs, from a [ConfirmData]. Default: a plain
	// built-in page.
	ConfirmView *template.Template

	// RequireApproval makes every confirm action need the person's
	// approval on the site, as Action.RequireApproval does for one
	// action; the site's gate of [StageApproval] asks for it.
	RequireApproval bool

	// Limits bound what callers can take of the site: a call's size, how
	// often a caller calls, how many calls run at once.
	Limits LimitOptions
	// Security holds the site's origins, where client addresses come
	// from behind a proxy, and HSTS.
	Security SecurityOptions
	// Grants are what a person grants their credentials, as the site
	// index lists them: scopes, and the actions a standing approval may
	// cover (a gate of StageStanding decides the calls).
	Grants GrantOptions
	// Idempotency keeps the Idempotency-Keys of calls.
	Idempotency IdempotencyOptions

	// Unreachable reports whether an error of the site's code (a loader,
	// an action, the authenticator, the idempotency store) means its data
	// could not be reached for a moment: such a failure answers 503
	// unavailable with Retry-After, which clients retry with the call's
	// Idempotency-Key, instead of 500 internal. Default: [Unreachable]
	// (lost, refused and timed-out connections, a database shutting
	// down).
	Unreachable func(error) bool
	// Discovery shapes the discovery files the site serves from its index
	// (/llms.txt, the AI catalog, and its doors' files) and turns the
	// site's own off.
	Discovery DiscoveryOptions

	// Observer is told about every call and graph read, with the time of
	// each pipeline step (see [Observer]; an extension reports
	// them to OpenTelemetry). Default: none, and no clock is read for it.
	Observer Observer
}

// withDefaults fills in every option left at its zero value.
func withDefaults(o Options) Options {
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Unreachable == nil {
		o.Unreachable = Unreachable
	}
	if o.Limits.QueueWait <= 0 {
		o.Limits.QueueWait = 100 * time.Millisecond
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
	if o.Limits.GraphTokens <= 0 {
		o.Limits.GraphTokens = 2000
	}
	if o.Limits.MaxBodyBytes <= 0 {
		o.Limits.MaxBodyBytes = 1 << 20
	}
	if o.Limits.BodyTimeout <= 0 {
		o.Limits.BodyTimeout = 10 * time.Second
	}
	if o.Limits.Limiter == nil {
		o.Limits.Limiter = ratelimit.NewMemory(nil)
	}
	if o.Limits.Default == (ratelimit.Limit{}) {
		o.Limits.Default = ratelimit.PerMinute(120, 30)
	}
	if o.ConfirmView == nil {
		o.ConfirmView = defaultConfirmView
	}
	if o.Idempotency.Store == nil {
		o.Idempotency.Store = idempotency.NewMemory()
	}
	if o.Idempotency.TTL <= 0 {
		o.Idempotency.TTL = 24 * time.Hour
	}
	if len(o.Idempotency.Secret) == 0 {
		o.Idempotency.Secret = make([]byte, 32)
		rand.Read(o.Idempotency.Secret) // crypto/rand.Read never fails (Go 1.24)
	}
	return o
}

// LimitOptions bound what callers can take of a site (Options.Limits).
type LimitOptions struct {
	// MaxBodyBytes limits the body of a call. Default: 1 MiB.
	MaxBodyBytes int64
	// BodyTimeout is how long a call's body (an agent's JSON, a form)
	// may take to arrive once its headers have: a slower sender is
	// answered 400 and its connection closed. The body is read before
	// the call takes a slot (MaxInFlight), so a slow sender holds none.
	// Default: 10 seconds.
	BodyTimeout time.Duration
	// Limiter counts calls per caller, route and action. Default: an
	// in-memory GCRA limiter.
	Limiter ratelimit.Limiter
	// Default applies to actions that set no Limit of their own.
	// Default: 120 calls a minute with a burst of 30.
	Default ratelimit.Limit
	// FailClosed denies calls (429, Retry-After: 1) when the
	// limiter fails. By default such calls are allowed, the failure is
	// logged and counted in [Site.LimiterFaults]: a broken limiter must
	// not take the site down.
	FailClosed bool
	// MaxInFlight, when above zero, is how many calls the site runs at
	// once, on every door (agents' POSTs, forms, MCP): past it, up to
	// MaxQueued more wait QueueWait for a slot (default 100 ms), and the
	// others are refused at once, before their caller is authenticated
	// (their body, read first within BodyTimeout, holds no slot while it
	// arrives), with 503 unavailable and Retry-After: 1, which
	// clients retry with the call's key (a refusal's audit record has no
	// caller: none was looked up). Reads are not held. [Site.Shed] counts
	// the refusals. Default: no limit. A queue absorbs bursts; under a
	// load that lasts it adds its wait to every admitted call, so start
	// with MaxInFlight at the machine's cores and no queue, and measure
	// (examples/shop/overload).
	MaxInFlight int
	MaxQueued   int
	QueueWait   time.Duration
	// GraphTokens is the size, in tokens estimated as bytes/4, above
	// which a route's graph is logged as too large, once per route.
	// Default: 2000.
	GraphTokens int
}

// SecurityOptions are the site's origins, the client addresses behind a
// proxy, and HSTS (Options.Security).
type SecurityOptions struct {
	// Origins lists the origins ("https://shop.example") that cookie
	// calls may come from. Default: the request's own scheme and host,
	// the scheme being https when the connection is TLS. Behind a proxy
	// that terminates TLS, list the public origin here.
	Origins []string
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
	// HSTS, when positive, sends Strict-Transport-Security with this
	// max-age on every answer the site gives over HTTPS ([Site.Secure]),
	// so that browsers never reach it over plain http again. Default: off.
	HSTS time.Duration
}

// GrantOptions describe what a person grants their credentials: the
// actions a token may call, and calls approved in advance
// (Options.Grants).
type GrantOptions struct {
	// Page, when set, is where a person grants a credential some
	// actions only, and approves some calls in advance (Caller.Scopes,
	// and a gate of StageStanding): the site index lists the scopes (the actions' names) and
	// this page (protocol.SiteIndex.Grants). StandingActions names the
	// actions a person can approve in advance there; Scopes the
	// actions a credential can be granted (default: every action's name).
	Page            string
	StandingActions []string
	Scopes          []string
}

// IdempotencyOptions configure the Idempotency-Keys of calls
// (Options.Idempotency.Store).
type IdempotencyOptions struct {
	// Store keeps the Idempotency-Key of calls (see
	// [idempotency.Store]). Default: in memory, for one instance.
	Store idempotency.Store
	// TTL is how long a key's outcome is kept and replayed.
	// Default: 24 hours.
	TTL time.Duration
	// Secret keys the fingerprints of keyed calls (HMAC-SHA-256,
	// see [idempotency.Fingerprint]), so that a key store that leaks
	// gives no way to test a guess of a call's input, a password among
	// them. Keep it out of the database that holds the keys (a file, an
	// environment variable, a secrets manager), at least 16 bytes, and the
	// same on every instance that shares the store. Default: 32 random
	// bytes per process, right for the in-memory store; with a shared
	// store, a retry that reaches another instance, or this one after a
	// restart, is then refused (409) as another call: never run twice,
	// but not replayed either.
	Secret []byte
}

// DiscoveryOptions shape the discovery files. The zero value serves all
// of them, with words made from the index.
type DiscoveryOptions struct {
	// Description says in a sentence what the site is, for llms.txt, the
	// catalog and the doors' files. Default: made from the site's name.
	Description string
	// Queries are 2 to 5 questions a person might ask that this site
	// answers ("buy a t-shirt in size M"), for the catalog's search
	// indexes. Default: the descriptions of the site's first pages.
	Queries []string
	// NoLLMsTxt and NoAICatalog turn a file off, such as when the
	// application serves its own.
	NoLLMsTxt, NoAICatalog bool
}
