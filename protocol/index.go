package protocol

import "encoding/json"

// WellKnownPath is where a site serves its [SiteIndex].
const WellKnownPath = "/.well-known/affordances.json"

// AuthMode names a way an agent can authenticate to a site.
type AuthMode string

const (
	// AuthCookie: the agent rides on a session cookie, as a browser does,
	// and sends the site's own Origin with every call.
	AuthCookie AuthMode = "cookie"
	// AuthBearer: the agent sends Authorization: Bearer with a token the
	// site issued.
	AuthBearer AuthMode = "bearer"
)

// AuthModes lists every [AuthMode] of the protocol.
func AuthModes() []AuthMode { return []AuthMode{AuthCookie, AuthBearer} }

// SiteIndex lists a whole site: enough for an agent to plan a task, and to
// call an action on a concrete URL of a route without opening the page first.
type SiteIndex struct {
	// V is the protocol major version of the document, "0" here.
	V string `json:"v"`
	// Name is the site's name.
	Name string `json:"name,omitempty"`
	// Routes lists every route pattern that has a graph.
	Routes []IndexRoute `json:"routes"`
	// Auth lists the ways an agent can authenticate.
	Auth []AuthMode `json:"auth"`
	// MCP is the URL of the site's MCP endpoint, when it has one.
	MCP string `json:"mcp,omitempty"`
	// Grants, when the site lets a person grant a credential some actions
	// only (and approve some calls in advance), says what can be asked
	// for and where: an extension of v0 ([ExtensionGrants]).
	Grants *Grants `json:"grants,omitempty"`
	// Extensions names the extensions of v0 the site offers, such as
	// [ExtensionIdempotency] and [ExtensionApprovals]. A v0 client ignores
	// it and works as before.
	Extensions []string `json:"extensions,omitempty"`
}

// The extensions of v0 a site may list in SiteIndex.Extensions.
const (
	// ExtensionIdempotency: calls may carry an Idempotency-Key header and
	// then run at most once per caller and key.
	ExtensionIdempotency = "idempotency"
	// ExtensionApprovals: some confirm actions need the person's approval
	// on the site (ActionSummary.Approval, Delta.ApprovalURL).
	ExtensionApprovals = "approvals"
	// ExtensionMarkdown: a page's GET that prefers text/markdown (and asks
	// for no graph) answers the page as Markdown: its md, its actions and
	// its links.
	ExtensionMarkdown = "markdown"
	// ExtensionWebMCP: the site's HTML pages register their available
	// actions as WebMCP tools in the browser, for an agent that works in
	// the person's browser.
	ExtensionWebMCP = "webmcp"
	// ExtensionGrants: a credential may be limited to some actions
	// (scopes), and some calls approved in advance; SiteIndex.Grants says
	// what can be asked for and where.
	ExtensionGrants = "grants"
)

// Grants is what an agent can ask a person to grant its credential.
type Grants struct {
	// Scopes are the scopes a credential can be granted: the names of
	// actions. A credential limited to some runs only those.
	Scopes []string `json:"scopes"`
	// Page is where the person grants them, such as /account.
	Page string `json:"page,omitempty"`
	// Standing names the actions the person can approve in advance,
	// within limits the site sets.
	Standing []string `json:"standing,omitempty"`
}

// MarshalJSON writes the index with its required lists present even when
// they are nil.
func (s SiteIndex) MarshalJSON() ([]byte, error) {
	type plain SiteIndex
	if s.Routes == nil {
		s.Routes = []IndexRoute{}
	}
	if s.Auth == nil {
		s.Auth = []AuthMode{}
	}
	return json.Marshal(plain(s))
}

// IndexRoute is one route of a [SiteIndex].
type IndexRoute struct {
	// Route is the pattern in bracket form, such as /products/[slug].
	Route string `json:"route"`
	// Description is one line on what the page is for.
	Description string `json:"description,omitempty"`
	// Actions summarises every action of the route.
	Actions []ActionSummary `json:"actions"`
}

// MarshalJSON writes the route with an action list even when it is nil.
func (r IndexRoute) MarshalJSON() ([]byte, error) {
	type plain IndexRoute
	if r.Actions == nil {
		r.Actions = []ActionSummary{}
	}
	return json.Marshal(plain(r))
}
