package site

import (
	"context"
	"net/http"

	"github.com/affordances-go/affordances/internal/bearer"
	"github.com/affordances-go/affordances/protocol"
)

// Caller is who made a request, as the site's [Authenticator] reports it.
type Caller struct {
	// ID identifies the caller for rate limits and audit logs. It must be
	// opaque and stable (a session or token id, a hash), never personal
	// data such as an email address. Empty for anonymous callers.
	ID string
	// Mode is how the request carried its credentials: protocol.AuthCookie
	// for a cookie the site's session layer reads (a signed-in session or
	// a guest's cart alike; such calls must pass the Origin rule),
	// protocol.AuthBearer for an accepted Authorization: Bearer token, and
	// empty for an anonymous request.
	Mode protocol.AuthMode
	// SignedIn reports whether the site authenticated a user, by session
	// cookie or by bearer token. Actions exposed as session or confirm
	// need it. A guest with only a cart cookie is AuthCookie but not
	// signed in.
	SignedIn bool
	// User is the application's own value for the caller, for loaders,
	// guards and handlers to use.
	User any
	// Account identifies the person the caller acts for, the same across
	// their sessions and tokens (a user id, opaque). An approval asked by
	// an agent with a token is given by the person signed in with a
	// session: both must report the same Account. Empty: ID stands in.
	// It is the library's opaque string, for comparing callers: never
	// hand it to your database as your id (an ORM given the string "1"
	// as a condition, as gorm's First(&u, "1") is, reads it as SQL and
	// returns any row); keep your own id, in its own type, in User.
	Account string
	// Label names the credential for the person it acts for, as a phrase
	// that reads after "Asked by": `the agent with your token “laptop”`.
	// The approval page says which agent asked with it. Not an
	// identifier; may be empty ("an agent").
	Label string
	// Agent names the agent that signed the request, once its signature
	// is verified (Options.Agents, Web Bot Auth); empty when the request
	// is not signed. The audit record and the Observer carry it; the rate
	// limit of an anonymous caller counts by it instead of the address.
	Agent string
	// Scopes, when not nil, are the only actions the caller may run, by
	// name: a token a person granted for some actions. Any other action is
	// refused (403, unauthorized, naming the scope it needs) by every door,
	// and graphs show it unavailable with that reason. Nil allows every
	// action the caller's expose level allows; an empty, non-nil list
	// allows none.
	Scopes []string
}

// allows reports whether the caller's scopes allow the named action.
func (c Caller) allows(action string) bool {
	if c.Scopes == nil {
		return true
	}
	for _, s := range c.Scopes {
		if s == action {
			return true
		}
	}
	return false
}

// scopeReason says why an action is outside the caller's scopes.
func scopeReason(action string) string {
	return "this credential is not granted " + action + " (it needs the scope " + action + ")"
}

// AgentVerifier verifies the signature with which an agent says who it
// is (Web Bot Auth: package botauth's Verifier is one).
type AgentVerifier interface {
	// VerifyAgent returns the verified agent's name, "" for a request
	// that is not signed, or an error for a signature that is there and
	// wrong: the request is refused with 401 and the error's message.
	VerifyAgent(r *http.Request) (string, error)
}

// Authenticator reports who made a request. The site calls it once per
// request, before loading state, so guards, visibility predicates, loaders
// and actions all see the same [Caller].
//
// It returns [ErrBadToken] (or an error wrapping it) when the request
// carries a bearer token the site does not accept: the site answers 401
// rather than treating the request as anonymous. Any other error is a
// failure of the authenticator itself and answers 500.
type Authenticator interface {
	Authenticate(r *http.Request) (Caller, error)
}

// AuthFunc adapts a function to [Authenticator].
type AuthFunc func(r *http.Request) (Caller, error)

// Authenticate calls f(r).
func (f AuthFunc) Authenticate(r *http.Request) (Caller, error) { return f(r) }

// defaultAuth is used when a site has no Authenticator: it accepts no
// bearer token, and treats any cookie as a cookie-authenticated request so
// that the Origin rule protects calls by default.
type defaultAuth struct{}

func (defaultAuth) Authenticate(r *http.Request) (Caller, error) {
	if _, ok := BearerToken(r); ok {
		return Caller{}, ErrBadToken
	}
	if r.Header.Get("Cookie") != "" {
		return Caller{Mode: protocol.AuthCookie}, nil
	}
	return Caller{}, nil
}

// BearerToken returns the token of the request's Authorization: Bearer
// header (the scheme in any case, one or more spaces, a token68), for
// authenticators. ok is false when the request carries no well-formed
// bearer token; the site answers 401 before any authenticator runs to a
// header that names the scheme without one (a bare "Bearer", a tab for
// the space, characters a token68 cannot have), or to several
// Authorization headers: never a request without a token, which could
// fall back to a cookie.
func BearerToken(r *http.Request) (token string, ok bool) { return bearer.Token(r) }

// AccountID is the account the caller's approvals are bound to: Account,
// or ID when the authenticator reported no Account. The approvals
// binds an approval page's visitor by the same rule.
func (c Caller) AccountID() string {
	if c.Account != "" {
		return c.Account
	}
	return c.ID
}

// Request is what loaders, guards, visibility predicates and actions get:
// the HTTP request, with ?affordances=1 already removed from its URL, and
// the caller the site's Authenticator reported.
//
// Path values of the page's pattern are read with r.PathValue, as with any
// ServeMux handler.
type Request struct {
	*http.Request
	// Caller is who made the request. An action that changes who the
	// caller is (signing in or out) sets it, so that the delta's action
	// availability is computed for the new caller.
	Caller Caller

	header   http.Header   // response headers an action set, sent only on success
	approved *approvedCall // what the person approved, for a confirm action
	byPerson bool          // the HTML door: a page view, or a form posted as a navigation (see Actor)
	secure   bool          // the browser reached the site over HTTPS (Site.Secure): cookies are Secure
}

// SetCookie adds a Set-Cookie header to the response. An action's cookies
// are sent only when the action succeeds, so a failed call leaves the
// client's cookies as they were. A page's loaders may set cookies too:
// they go with the page's HTML (never shared-cached then), not with a
// graph. Over HTTPS ([Site.Secure]) the cookie is
// made Secure, whatever the action set.
func (r *Request) SetCookie(c *http.Cookie) {
	if r.secure && !c.Secure {
		cc := *c
		cc.Secure = true
		c = &cc
	}
	if v := c.String(); v != "" {
		r.ResponseHeader().Add("Set-Cookie", v)
	}
}

// ResponseHeader returns headers to add to the response. Headers set by an
// action are sent only when it succeeds.
func (r *Request) ResponseHeader() http.Header {
	if r.header == nil {
		r.header = http.Header{}
	}
	return r.header
}

// flushHeader copies the headers an action set to the answer's.
func (r *Request) flushHeader(h http.Header) {
	for k, vs := range r.header {
		for _, v := range vs {
			h.Add(k, v)
		}
	}
}

// noCookiesKey marks a request that came through a door that cannot keep
// the cookies an action sets.
type noCookiesKey struct{}

// WithoutCookies marks hr as coming through a door that cannot keep the
// cookies an action sets, such as an MCP endpoint whose clients hold no
// cookie jar. The graphs, index and calls of such a request say so to the
// site's code ([Request.KeepsCookies]), so that an action whose effect
// lives in a cookie (signing in, a guest's cart) can hide itself or be
// unavailable, with a reason that says how to authenticate instead, rather
// than run and leave its effect behind where nobody can reach it.
func WithoutCookies(hr *http.Request) *http.Request {
	return hr.WithContext(context.WithValue(hr.Context(), noCookiesKey{}, true))
}

// KeepsCookies reports whether the caller's door keeps the cookies an
// action sets: true for a browser's or an agent's own HTTP requests, false
// for a request marked with [WithoutCookies].
func (r *Request) KeepsCookies() bool {
	no, _ := r.Context().Value(noCookiesKey{}).(bool)
	return !no
}

// ResponseWriter returns a writer whose headers are the action's response
// headers ([Request.ResponseHeader]), sent only when the action succeeds:
// for a session library that writes its cookie on an http.ResponseWriter,
// such as gorilla/sessions' session.Save(r.Request, r.ResponseWriter()).
// Its Write and WriteHeader do nothing: an action answers with its
// result, never by writing.
func (r *Request) ResponseWriter() http.ResponseWriter { return headerWriter{r} }

// headerWriter is Request.ResponseWriter.
type headerWriter struct{ r *Request }

func (w headerWriter) Header() http.Header       { return w.r.ResponseHeader() }
func (headerWriter) Write(b []byte) (int, error) { return len(b), nil }
func (headerWriter) WriteHeader(int)             {}
