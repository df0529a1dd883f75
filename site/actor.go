package site

import (
	"net/http"

	"github.com/affordances-go/affordances/protocol"
)

// Actor is who acts in a request: the person themselves, an agent that
// rides on the person's cookie session, an agent with a token of its own,
// or nobody the site knows. Guards, visibility predicates, policies and
// actions read it with [Request.Actor] to keep for the person what only
// the person should do; it is one name for the same fact on every door.
//
// The door decides it, never the body: a person acts only through the
// HTML door in their own browser (a page they view, a form of this site
// they post as a navigation, in their cookie session, with this site's
// Origin). A JSON call, the WebMCP script, MCP and the inspector riding
// the same cookie are an agent acting for the person, and so is a form
// body posted by a script (a browser marks such a fetch with a
// Sec-Fetch-Mode other than navigate), a form a script submits without
// the person's gesture (no Sec-Fetch-User: ?1), and a page a script
// fetches.
//
// An Actor says who acts, not that the person is at the keyboard: an
// agent that drives the browser itself (clicks the page, presses the
// buttons) arrives as ActorPerson. What tells the person from it is
// presence, a user-verified passkey assertion (see docs/security.md).
type Actor string

// The actors of a request.
const (
	// ActorAnonymous brought no credential the site reads: no cookie of
	// its session layer, no bearer token.
	ActorAnonymous Actor = "anonymous"
	// ActorPerson is the person in their own browser: an HTML page they
	// view, or a form of this site they post, in their cookie session
	// (a guest's cart cookie included; [Caller].SignedIn says whether
	// they are signed in).
	ActorPerson Actor = "person"
	// ActorSessionAgent is an agent that rides on the person's cookie
	// session: a JSON call, a WebMCP tool, MCP or the inspector with the
	// person's cookie, or a form body a script posted.
	ActorSessionAgent Actor = "session-agent"
	// ActorTokenAgent is an agent with a bearer token the site accepts,
	// on any door, a form post included.
	ActorTokenAgent Actor = "token-agent"
)

// IsAgent reports whether the actor is an agent, with the person's
// session or a token of its own.
func (a Actor) IsAgent() bool { return a == ActorSessionAgent || a == ActorTokenAgent }

// Actor returns who acts in this request (see [Actor]). It is the same
// for a request's loaders, guards, visibility predicates and action.
func (r *Request) Actor() Actor {
	switch {
	case r == nil:
		return ActorAnonymous
	case r.Caller.Mode == protocol.AuthBearer:
		return ActorTokenAgent
	case r.Caller.Mode != protocol.AuthCookie:
		return ActorAnonymous
	case r.byPerson:
		return ActorPerson
	}
	return ActorSessionAgent
}

// peopleOnlyReason is the message of the unauthorized error an agent
// gets for an action that is for people only ([Action.PeopleOnly]): it
// names the page where the person does it.
func peopleOnlyReason(page string) string {
	return "only a person can do this, signed in on the site in a browser, at " + page + "; an agent cannot, whatever its credential"
}

// navigation reports whether a request is the person's own navigation in
// their browser, or one whose sender says nothing of it. Browsers mark
// every request with Sec-Fetch-Mode (a script cannot set it): a page the
// person opens or a form they submit is "navigate"; a fetch by a script,
// such as an agent's in the page, is "cors", "same-origin" or "no-cors".
// A form a script submits (form.submit()) is a navigation too, but
// without the person's gesture: only a submission the person made
// carries Sec-Fetch-User: ?1, so a browser's POST needs it. A client
// without the header is no browser, and could say anything: presence,
// not this, stands against it (docs/security.md says what such a client
// holding the person's cookie can do).
func navigation(hr *http.Request) bool {
	switch hr.Header.Get("Sec-Fetch-Mode") {
	case "":
		return true
	case "navigate":
		safe := hr.Method == http.MethodGet || hr.Method == http.MethodHead
		return safe || hr.Header.Get("Sec-Fetch-User") == "?1"
	}
	return false
}

// listed reports whether the action is listed for r: in a graph, the
// index, a delta, the MCP tools and the WebMCP tools. A people-only action
// is listed only on the person's own HTML page, for its form.
func (a *action) listed(r *Request) bool {
	return a.visible(r) && (!a.meta.PeopleOnly || r.byPerson)
}

// peopleOnly is the refusal of a people-only action to an agent: 403,
// unauthorized, with a message that names the page to do it on.
func (c *call) peopleOnly() *Error {
	if !c.act.meta.PeopleOnly || c.r.Actor() == ActorPerson {
		return nil
	}
	return newError(protocol.CodeUnauthorized, peopleOnlyReason(c.r.URL.Path)).withStatus(http.StatusForbidden)
}

// personPresent reports whether the call is the person's own act rather
// than an agent's: an HTML form posted as a navigation in the person's own
// signed-in cookie session with this site's Origin (which step 2 has
// checked for every cookie call): [ActorPerson], signed in. Who calls
// decides, never the body's format: a form posted with a bearer token is
// an agent's call, under exactly the rules of an agent's JSON call, and
// every other door (JSON, MCP, the inspector) is an agent's.
func (c *call) personPresent() bool {
	return c.r.Actor() == ActorPerson && c.r.Caller.SignedIn
}

// Transport names the door a call or a graph read came through, for the
// audit log and the Observer. Who calls decides what a call may do; the
// transport only says how it arrived. The core names its own two doors;
// a door plugged in names itself, with a constant of its package.
type Transport string

// The site's transports.
const (
	// TransportAgent is an agent's POST of a call, or its GET of a graph.
	TransportAgent Transport = "agent"
	// TransportForm is an HTML form posted to the page.
	TransportForm Transport = "form"
	// TransportOther is a site's own transport, through Execute or
	// ReadGraph, that did not name itself. A door names its own (the MCP
	// endpoint's is "mcp").
	TransportOther Transport = "other"
)

// CallerKind is what kind of credential a caller brought.
type CallerKind string

// The kinds of caller.
const (
	CallerAnonymous CallerKind = "anonymous"
	CallerCookie    CallerKind = "cookie"
	CallerBearer    CallerKind = "bearer"
)

// callerKind is the kind of a caller authenticated in mode m.
func callerKind(m protocol.AuthMode) CallerKind {
	switch m {
	case protocol.AuthCookie:
		return CallerCookie
	case protocol.AuthBearer:
		return CallerBearer
	}
	return CallerAnonymous
}
