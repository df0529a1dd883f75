package conformance

import "github.com/affordances-go/affordances/protocol"

// Catalogue returns every check, in the order they run.
func Catalogue() []Check {
	return []Check{
		{"negotiation.media-type", "a GET that accepts the media type gets the page's graph", Must, checkMediaType},
		{"negotiation.browser", "a browser's Accept header gets HTML, not a graph", Must, checkNoGraphFor("text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8")},
		{"negotiation.any", "Accept: */* gets HTML, not a graph", Must, checkNoGraphFor("*/*")},
		{"negotiation.json", "Accept: application/json gets HTML, not a graph", Must, checkNoGraphFor("application/json")},
		{"negotiation.query-alias", "?affordances=1 gets the graph without an Accept header", Must, checkQueryAlias},
		{"negotiation.alias-not-in-state", "the affordances parameter does not reach the page's state", Must, checkAliasHidden},
		{"headers.graph-content-type", "graphs are sent as application/vnd.affordances+json", Must, checkGraphHeader("Content-Type", protocol.MediaType)},
		{"headers.graph-vary", "graphs carry Vary: Accept", Must, checkGraphHeader("Vary", "Accept")},
		{"headers.graph-cache-control", "graphs carry Cache-Control: private, no-store", Must, checkGraphCacheControl},
		{"headers.html-vary", "the HTML of a page with a graph carries Vary: Accept", Should, checkHTMLVary},
		{"discovery.link-header", `the HTML of a page with a graph has Link: <?affordances=1>; rel="affordances"`, Should, checkLinkHeader},
		{"headers.not-found-uncached", "an agent's not_found for a path without a page is never stored for others (no-store, or Vary: Accept)", Should, checkNotFoundUncached},
		{"discovery.link-element", `the HTML of a page with a graph has <link rel="affordances" href="?affordances=1">`, Should, checkLinkElement},
		{"errors.not-found", "a path without a graph answers an agent 404 with a not_found delta", Must, checkNotFound},
		{"index.served", "/.well-known/affordances.json is a valid site index of a supported version", Must, checkIndex},
		{"index.matches-graphs", "the index lists the route and the actions of every graph found", Must, checkIndexMatches},
		{"index.routes-reached", "a page of every route of the index was found and checked", Should, checkRoutesReached},
		{"schema.graphs", "every graph satisfies the graph schema", Must, checkGraphSchemas},
		{"methods.head", "HEAD is GET without a body", Must, checkHead},
		{"methods.not-allowed", "other methods get 405 with an Allow header", Must, checkMethodNotAllowed},
		{"pages.made-up-url", "a call on a made-up URL of a route answers 404 not_found before anything else and writes nothing", Must, checkMadeUpURL},
		{"pages.link-without-graph", `an HTML page without a graph announces none (no rel="affordances")`, Should, checkLinkWithoutGraph},
		{"calls.unknown-action", "a call naming no action of the route answers 404 not_found", Must, checkUnknownAction},
		{"calls.not-json", "a call body that is not JSON answers 400 invalid_input", Must, checkNotJSON},
		{"calls.invalid-input", "input that fails the schema answers 400 invalid_input listing issues with path, message and keyword", Must, checkInvalidInput},
		{"calls.order-auth-before-input", "the expose check comes before input validation", Must, checkAuthBeforeInput},
		{"calls.order-input-before-guard", "input validation comes before the guard", Must, checkInputBeforeGuard},
		{"calls.unknown-fields-ignored", "unknown fields of a call are ignored (runs the --safe-action)", Must, checkUnknownFields},
		{"origin.cookie-calls", "a call with a cookie and no matching Origin answers 403 unauthorized", Must, checkCookieOrigin},
		{"origin.bearer-exempt", "a bearer call is exempt from the Origin rule", Must, checkBearerExempt},
		{"confirm.nothing-runs", "a confirm action without confirm: true answers 428 confirm_required and runs nothing", Must, checkConfirm},
		{"approval.needed", "an action that declares approval does not run on confirm: true alone; it answers 428 confirm_required with an approvalUrl (--confirm-action)", Must, checkApprovalNeeded},
		{"approval.page-session", "the approval page offers no decision to a visitor without a session", Must, checkApprovalPage},
		{"approval.unknown-refused", "an approval the site never issued runs nothing: 428 confirm_required", Must, checkApprovalUnknown},
		{"ratelimit.retry-after", "a rate-limited call answers 429 rate_limited with Retry-After in seconds (opt-in burst)", Must, checkRetryAfter},
		{"mcp.endpoint", "the MCP endpoint the index lists answers initialize and lists a tool for every action of the index", Should, checkMCPEndpoint},
		{"size.graph-tokens", "graphs stay under about 2,000 tokens (bytes/4)", Should, checkGraphSize},
	}
}

func needPages(e *Env) (Outcome, bool) {
	if len(e.pages) == 0 {
		return fail("no page with a graph was found from %s, the index or the given pages", e.base), false
	}
	return Outcome{}, true
}
