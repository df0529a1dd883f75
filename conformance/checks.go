package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/schemas"
)

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
		{"discovery.link-element", `the HTML of a page with a graph has <link rel="affordances" href="?affordances=1">`, Should, checkLinkElement},
		{"errors.not-found", "a path without a graph answers an agent 404 with a not_found delta", Must, checkNotFound},
		{"index.served", "/.well-known/affordances.json is a valid site index of a supported version", Must, checkIndex},
		{"index.matches-graphs", "the index lists the route and the actions of every graph found", Must, checkIndexMatches},
		{"schema.graphs", "every graph satisfies the graph schema", Must, checkGraphSchemas},
		{"methods.head", "HEAD is GET without a body", Must, checkHead},
		{"methods.not-allowed", "other methods get 405 with an Allow header", Must, checkMethodNotAllowed},
		{"calls.unknown-action", "a call naming no action of the route answers 404 not_found", Must, checkUnknownAction},
		{"calls.not-json", "a call body that is not JSON answers 400 invalid_input", Must, checkNotJSON},
		{"calls.invalid-input", "input that fails the schema answers 400 invalid_input listing issues with path, message and keyword", Must, checkInvalidInput},
		{"calls.order-auth-before-input", "the expose check comes before input validation", Must, checkAuthBeforeInput},
		{"calls.order-input-before-guard", "input validation comes before the guard", Must, checkInputBeforeGuard},
		{"calls.unknown-fields-ignored", "unknown fields of a call are ignored (runs the --safe-action)", Must, checkUnknownFields},
		{"origin.cookie-calls", "a call with a cookie and no matching Origin answers 403 unauthorized", Must, checkCookieOrigin},
		{"origin.bearer-exempt", "a bearer call is exempt from the Origin rule", Must, checkBearerExempt},
		{"confirm.nothing-runs", "a confirm action without confirm: true answers 428 confirm_required and runs nothing", Must, checkConfirm},
		{"ratelimit.retry-after", "a rate-limited call answers 429 rate_limited with Retry-After in seconds (opt-in burst)", Must, checkRetryAfter},
		{"size.graph-tokens", "graphs stay under about 2,000 tokens (bytes/4)", Should, checkGraphSize},
	}
}

func needPages(e *Env) (Outcome, bool) {
	if len(e.pages) == 0 {
		return fail("no page with a graph was found from %s, the index or the given pages", e.base), false
	}
	return Outcome{}, true
}

func checkMediaType(ctx context.Context, e *Env) Outcome {
	if o, ok := needPages(e); !ok {
		return o
	}
	for _, p := range e.pages {
		if p.graph.V == "" || p.graph.Route == "" || p.graph.Page == "" {
			return fail("%s: the graph lacks v, page or route", p.url)
		}
	}
	return pass("%d pages answered with a graph", len(e.pages))
}

func checkNoGraphFor(accept string) func(context.Context, *Env) Outcome {
	return func(ctx context.Context, e *Env) Outcome {
		if o, ok := needPages(e); !ok {
			return o
		}
		for _, p := range e.pages {
			res, err := e.do(ctx, http.MethodGet, p.url, nil, "Accept", accept)
			if err != nil {
				return fail("%s: %v", p.url, err)
			}
			if res.mediaType() {
				return fail("%s answered Accept: %s with an Affordances document", p.url, accept)
			}
		}
		return pass("%d pages answered with something else", len(e.pages))
	}
}

// withAlias adds affordances=1 to a page URL's query.
func withAlias(u string) string {
	if strings.Contains(u, "?") {
		return u + "&affordances=1"
	}
	return u + "?affordances=1"
}

func checkQueryAlias(ctx context.Context, e *Env) Outcome {
	if o, ok := needPages(e); !ok {
		return o
	}
	for _, p := range e.pages {
		res, err := e.do(ctx, http.MethodGet, withAlias(p.url), nil, "Authorization", e.bearer())
		if err != nil {
			return fail("%s: %v", p.url, err)
		}
		var g protocol.Graph
		if res.status != http.StatusOK || !res.mediaType() || json.Unmarshal(res.body, &g) != nil {
			return fail("%s?affordances=1 answered %d %s, not a graph", p.url, res.status, res.header.Get("Content-Type"))
		}
	}
	return pass("%d pages", len(e.pages))
}

func checkAliasHidden(ctx context.Context, e *Env) Outcome {
	if o, ok := needPages(e); !ok {
		return o
	}
	for _, p := range e.pages {
		res, err := e.do(ctx, http.MethodGet, withAlias(p.url), nil, "Authorization", e.bearer())
		if err != nil {
			return fail("%s: %v", p.url, err)
		}
		var g protocol.Graph
		if json.Unmarshal(res.body, &g) != nil {
			return skip("%s?affordances=1 gave no graph (see negotiation.query-alias)", p.url)
		}
		if strings.Contains(g.Page, "affordances") {
			return fail("%s: page %q carries the affordances parameter", p.url, g.Page)
		}
		again, err := e.getGraph(ctx, p.url)
		if err != nil {
			return fail("%s: %v", p.url, err)
		}
		var want protocol.Graph
		json.Unmarshal(again.body, &want)
		if !reflect.DeepEqual(g.Entities, want.Entities) {
			return fail("%s: the entities under ?affordances=1 differ from those under the Accept header", p.url)
		}
	}
	return pass("%d pages show the same state either way", len(e.pages))
}

func checkGraphHeader(name, token string) func(context.Context, *Env) Outcome {
	return func(ctx context.Context, e *Env) Outcome {
		if o, ok := needPages(e); !ok {
			return o
		}
		for _, p := range e.pages {
			if !headerHas(p.resp.header, name, token) {
				return fail("%s: %s is %q", p.url, name, strings.Join(p.resp.header.Values(name), ", "))
			}
		}
		return pass("%d graphs", len(e.pages))
	}
}

// headerHas reports whether a header lists token (case-insensitively,
// ignoring parameters).
func headerHas(h http.Header, name, token string) bool {
	for _, v := range h.Values(name) {
		for _, part := range strings.Split(v, ",") {
			t, _, _ := strings.Cut(part, ";")
			if strings.EqualFold(strings.TrimSpace(t), token) {
				return true
			}
		}
	}
	return false
}

func checkGraphCacheControl(ctx context.Context, e *Env) Outcome {
	if o, ok := needPages(e); !ok {
		return o
	}
	for _, p := range e.pages {
		if !headerHas(p.resp.header, "Cache-Control", "private") || !headerHas(p.resp.header, "Cache-Control", "no-store") {
			return fail("%s: Cache-Control is %q", p.url, p.resp.header.Get("Cache-Control"))
		}
	}
	return pass("%d graphs", len(e.pages))
}

// htmlPages fetches the HTML of every page that has HTML.
func (e *Env) htmlPages(ctx context.Context) ([]*response, []string, error) {
	var out []*response
	var urls []string
	for _, p := range e.pages {
		res, err := e.do(ctx, http.MethodGet, p.url, nil, "Accept", "text/html")
		if err != nil {
			return nil, nil, err
		}
		if res.status == http.StatusOK && strings.HasPrefix(res.header.Get("Content-Type"), "text/html") {
			out = append(out, res)
			urls = append(urls, p.url)
		}
	}
	return out, urls, nil
}

func withHTML(ctx context.Context, e *Env, f func(url string, r *response) string) Outcome {
	if o, ok := needPages(e); !ok {
		return o
	}
	pages, urls, err := e.htmlPages(ctx)
	if err != nil {
		return fail("%v", err)
	}
	if len(pages) == 0 {
		return skip("no page answered with HTML")
	}
	for i, r := range pages {
		if msg := f(urls[i], r); msg != "" {
			return fail("%s: %s", urls[i], msg)
		}
	}
	return pass("%d HTML pages", len(pages))
}

func checkHTMLVary(ctx context.Context, e *Env) Outcome {
	return withHTML(ctx, e, func(u string, r *response) string {
		if !headerHas(r.header, "Vary", "Accept") {
			return fmt.Sprintf("Vary is %q", r.header.Get("Vary"))
		}
		return ""
	})
}

var linkRel = regexp.MustCompile(`(?i)<\s*\?affordances=1\s*>\s*;\s*rel\s*=\s*"?affordances"?`)

func checkLinkHeader(ctx context.Context, e *Env) Outcome {
	return withHTML(ctx, e, func(u string, r *response) string {
		for _, v := range r.header.Values("Link") {
			if linkRel.MatchString(v) {
				return ""
			}
		}
		return fmt.Sprintf("Link is %q", r.header.Get("Link"))
	})
}

var linkElem = regexp.MustCompile(`(?is)<link\b[^>]*\brel\s*=\s*["']?affordances["']?[^>]*>`)

func checkLinkElement(ctx context.Context, e *Env) Outcome {
	return withHTML(ctx, e, func(u string, r *response) string {
		m := linkElem.Find(r.body)
		if m == nil || !bytes.Contains(m, []byte("?affordances=1")) {
			return `no <link rel="affordances" href="?affordances=1">`
		}
		return ""
	})
}

func checkNotFound(ctx context.Context, e *Env) Outcome {
	target := e.abs("/afford-check-no-such-page-7f3a/")
	res, err := e.do(ctx, http.MethodGet, target, nil, "Accept", protocol.MediaType)
	if err != nil {
		return fail("%v", err)
	}
	if ok, msg := res.failedWith(http.StatusNotFound, protocol.CodeNotFound); !ok {
		return fail("%s: %s", target, msg)
	}
	if err := schemas.Validate(schemas.Delta, res.body); err != nil {
		return fail("the delta does not satisfy the delta schema: %v", err)
	}
	return pass("404 not_found")
}

func checkIndex(ctx context.Context, e *Env) Outcome {
	r := e.indexResp
	if r == nil {
		return fail("the index could not be fetched")
	}
	if r.status != http.StatusOK {
		return fail("status %d", r.status)
	}
	if err := schemas.Validate(schemas.SiteIndex, r.body); err != nil {
		return fail("the index does not satisfy the site index schema: %v", err)
	}
	if e.index == nil {
		return fail("the index could not be read")
	}
	if err := protocol.CheckVersion(e.index.V); err != nil {
		return fail("%v", err)
	}
	return pass("%d routes", len(e.index.Routes))
}

func checkIndexMatches(ctx context.Context, e *Env) Outcome {
	if e.index == nil {
		return skip("no readable index (see index.served)")
	}
	if o, ok := needPages(e); !ok {
		return o
	}
	routes := map[string][]string{}
	for _, r := range e.index.Routes {
		names := []string{}
		for _, a := range r.Actions {
			names = append(names, a.Name)
		}
		routes[r.Route] = names
	}
	for _, p := range e.pages {
		want, ok := routes[p.graph.Route]
		if !ok {
			return fail("%s: route %s is not in the index", p.url, p.graph.Route)
		}
		got := []string{}
		for _, a := range p.graph.Actions {
			got = append(got, a.Name)
		}
		if !sameSet(got, want) {
			return fail("%s: the graph lists actions %v, the index %v", p.url, got, want)
		}
	}
	return pass("%d graphs match the index", len(e.pages))
}

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	m := map[string]int{}
	for _, x := range a {
		m[x]++
	}
	for _, x := range b {
		m[x]--
	}
	for _, n := range m {
		if n != 0 {
			return false
		}
	}
	return true
}

func checkGraphSchemas(ctx context.Context, e *Env) Outcome {
	if o, ok := needPages(e); !ok {
		return o
	}
	for _, p := range e.pages {
		if err := schemas.Validate(schemas.Graph, p.resp.body); err != nil {
			return fail("%s: %v", p.url, err)
		}
	}
	return pass("%d graphs", len(e.pages))
}

func checkHead(ctx context.Context, e *Env) Outcome {
	if o, ok := needPages(e); !ok {
		return o
	}
	p := e.pages[0]
	res, err := e.do(ctx, http.MethodHead, p.url, nil, "Accept", protocol.MediaType, "Authorization", e.bearer())
	if err != nil {
		return fail("%v", err)
	}
	if res.status != http.StatusOK || len(res.body) != 0 || res.header.Get("Content-Type") != p.resp.header.Get("Content-Type") {
		return fail("%s: HEAD answered %d, %q, %d bytes of body", p.url, res.status, res.header.Get("Content-Type"), len(res.body))
	}
	return pass("%s", p.url)
}

func checkMethodNotAllowed(ctx context.Context, e *Env) Outcome {
	if o, ok := needPages(e); !ok {
		return o
	}
	p := e.pages[0]
	res, err := e.do(ctx, http.MethodPut, p.url, nil, "Accept", protocol.MediaType)
	if err != nil {
		return fail("%v", err)
	}
	if res.status != http.StatusMethodNotAllowed || res.header.Get("Allow") == "" {
		return fail("%s: PUT answered %d, Allow %q", p.url, res.status, res.header.Get("Allow"))
	}
	return pass("405, Allow: %s", res.header.Get("Allow"))
}

func checkUnknownAction(ctx context.Context, e *Env) Outcome {
	if o, ok := needPages(e); !ok {
		return o
	}
	p := e.pages[0]
	res, err := e.post(ctx, p.url, `{"action":"affordCheckNoSuchAction","input":{}}`)
	if err != nil {
		return fail("%v", err)
	}
	if ok, msg := res.failedWith(http.StatusNotFound, protocol.CodeNotFound); !ok {
		return fail("%s: %s", p.url, msg)
	}
	return pass("404 not_found")
}

func checkNotJSON(ctx context.Context, e *Env) Outcome {
	p, a := e.findAction(func(*protocol.ActionDescriptor) bool { return true })
	if p == nil {
		return skip("no page lists an action")
	}
	res, err := e.post(ctx, p.url, `{"action":`+strconv.Quote(a.Name)+`,`)
	if err != nil {
		return fail("%v", err)
	}
	if ok, msg := res.failedWith(http.StatusBadRequest, protocol.CodeInvalidInput); !ok {
		return fail("%s: %s", p.url, msg)
	}
	return pass("400 invalid_input")
}

// callable finds an action this checker can call past the expose check
// (public; session ones too with a token) whose input must be an object.
func (e *Env) callable(extra func(*protocol.ActionDescriptor) bool) (*page, *protocol.ActionDescriptor) {
	return e.findAction(func(a *protocol.ActionDescriptor) bool {
		ok := a.Expose == protocol.ExposePublic || e.cfg.Token != ""
		return ok && objectInput(a) && (extra == nil || extra(a))
	})
}

var pointer = regexp.MustCompile(`^(/([^~/]|~[01])*)*$`)

func checkInvalidInput(ctx context.Context, e *Env) Outcome {
	p, a := e.callable(nil)
	if p == nil {
		return skip("no action with an object input that this checker may call")
	}
	res, err := e.post(ctx, p.url, invalidCall(a.Name), "Authorization", e.bearer())
	if err != nil {
		return fail("%v", err)
	}
	if ok, msg := res.failedWith(http.StatusBadRequest, protocol.CodeInvalidInput); !ok {
		return fail("%s %s: %s", p.url, a.Name, msg)
	}
	var raw struct {
		Error struct {
			Issues []map[string]any `json:"issues"`
		} `json:"error"`
	}
	json.Unmarshal(res.body, &raw)
	if len(raw.Error.Issues) == 0 {
		return fail("%s %s: invalid_input without issues", p.url, a.Name)
	}
	for _, is := range raw.Error.Issues {
		path, okp := is["path"].(string)
		_, okm := is["message"].(string)
		_, okk := is["keyword"].(string)
		if !okp || !okm || !okk {
			return fail("%s %s: an issue lacks path, message or keyword: %v", p.url, a.Name, is)
		}
		if !pointer.MatchString(path) {
			return fail("%s %s: issue path %q is not a JSON Pointer", p.url, a.Name, path)
		}
	}
	if err := schemas.Validate(schemas.Delta, res.body); err != nil {
		return fail("the delta does not satisfy the delta schema: %v", err)
	}
	return pass("%s: %d issues", a.Name, len(raw.Error.Issues))
}

func checkAuthBeforeInput(ctx context.Context, e *Env) Outcome {
	p, a := e.findAction(func(a *protocol.ActionDescriptor) bool { return a.Expose.NeedsSession() && objectInput(a) })
	if p == nil {
		return skip("no session or confirm action with an object input was found")
	}
	res, err := e.post(ctx, p.url, invalidCall(a.Name)) // anonymous: no token, no cookie
	if err != nil {
		return fail("%v", err)
	}
	if ok, msg := res.failedWith(http.StatusUnauthorized, protocol.CodeUnauthorized); !ok {
		return fail("%s %s, anonymous, invalid input: %s", p.url, a.Name, msg)
	}
	return pass("%s: 401 before validation", a.Name)
}

func checkInputBeforeGuard(ctx context.Context, e *Env) Outcome {
	auth := e.bearer()
	p, a := e.callable(func(a *protocol.ActionDescriptor) bool { return !a.Available })
	if p == nil {
		// Look as an anonymous caller: public actions are often
		// unavailable to one (an empty cart).
		auth = ""
		for _, pg := range e.pages {
			res, err := e.do(ctx, http.MethodGet, pg.url, nil, "Accept", protocol.MediaType)
			var g protocol.Graph
			if err != nil || res.status != http.StatusOK || json.Unmarshal(res.body, &g) != nil {
				continue
			}
			for i := range g.Actions {
				if c := &g.Actions[i]; !c.Available && c.Expose == protocol.ExposePublic && objectInput(c) {
					p, a = pg, c
					break
				}
			}
			if p != nil {
				break
			}
		}
	}
	if p == nil {
		return skip("no unavailable action that this checker may call was found")
	}
	res, err := e.post(ctx, p.url, invalidCall(a.Name), "Authorization", auth)
	if err != nil {
		return fail("%v", err)
	}
	if ok, msg := res.failedWith(http.StatusBadRequest, protocol.CodeInvalidInput); !ok {
		return fail("%s %s (unavailable: %s), invalid input: %s", p.url, a.Name, a.Reason, msg)
	}
	return pass("%s: 400 before its guard", a.Name)
}

func checkUnknownFields(ctx context.Context, e *Env) Outcome {
	s := e.cfg.Safe
	if s == nil {
		return skip("needs an action that may run: --safe-action")
	}
	body := map[string]any{"action": s.Name, "afford-check-unknown": true}
	if s.Input != nil {
		body["input"] = s.Input
	}
	b, _ := json.Marshal(body)
	res, err := e.post(ctx, e.abs(s.Page), string(b), "Authorization", e.bearer(), "Cookie", e.cookieUnlessToken(), "Origin", e.originUnlessToken())
	if err != nil {
		return fail("%v", err)
	}
	d, err := res.delta()
	if err != nil || res.status != http.StatusOK || !d.OK {
		return fail("%s %s with an unknown field: status %d %s", s.Page, s.Name, res.status, res.body)
	}
	if err := schemas.Validate(schemas.Delta, res.body); err != nil {
		return fail("the delta does not satisfy the delta schema: %v", err)
	}
	return pass("%s ran", s.Name)
}

func (e *Env) cookieUnlessToken() string {
	if e.cfg.Token != "" {
		return ""
	}
	return e.cfg.Cookie
}

func (e *Env) originUnlessToken() string {
	if e.cfg.Token != "" {
		return ""
	}
	return e.origin()
}

func checkCookieOrigin(ctx context.Context, e *Env) Outcome {
	if e.cfg.Cookie == "" {
		return skip("needs a session cookie: --cookie or --cookie-jar")
	}
	p, a := e.findAction(objectInput)
	if p == nil {
		return skip("no action with an object input was found")
	}
	other := "http://afford-check.invalid"
	scheme := "https"
	if e.base.Scheme == "https" {
		scheme = "http"
	}
	port := e.base.Scheme + "://" + e.base.Hostname() + ":1"
	for _, origin := range []string{"", "null", other, scheme + "://" + e.base.Host, port} {
		res, err := e.post(ctx, p.url, invalidCall(a.Name), "Cookie", e.cfg.Cookie, "Origin", origin)
		if err != nil {
			return fail("%v", err)
		}
		if ok, msg := res.failedWith(http.StatusForbidden, protocol.CodeUnauthorized); !ok {
			shown := origin
			if shown == "" {
				shown = "(none)"
			}
			return fail("%s %s with a cookie and Origin %s: %s", p.url, a.Name, shown, msg)
		}
	}
	return pass("%s: 403 without Origin, with null, another host, scheme or port", a.Name)
}

func checkBearerExempt(ctx context.Context, e *Env) Outcome {
	if e.cfg.Token == "" {
		return skip("needs a bearer token: --token")
	}
	p, a := e.findAction(objectInput)
	if p == nil {
		return skip("no action with an object input was found")
	}
	res, err := e.post(ctx, p.url, invalidCall(a.Name), "Authorization", e.bearer(), "Origin", "http://afford-check.invalid")
	if err != nil {
		return fail("%v", err)
	}
	if res.status == http.StatusForbidden {
		return fail("%s %s: a bearer call from another Origin answered 403", p.url, a.Name)
	}
	return pass("%s: %d, not 403", a.Name, res.status)
}

func checkConfirm(ctx context.Context, e *Env) Outcome {
	c := e.cfg.Confirm
	if c == nil {
		return skip("needs a confirm action: --confirm-action")
	}
	target := e.abs(c.Page)
	before, err := e.getGraph(ctx, target)
	if err != nil || before.status != http.StatusOK {
		return fail("reading %s before the call: %v", target, err)
	}
	body := map[string]any{"action": c.Name}
	if c.Input != nil {
		body["input"] = c.Input
	}
	b, _ := json.Marshal(body)
	res, err := e.post(ctx, target, string(b), "Authorization", e.bearer(), "Cookie", e.cookieUnlessToken(), "Origin", e.originUnlessToken())
	if err != nil {
		return fail("%v", err)
	}
	ok, msg := res.failedWith(http.StatusPreconditionRequired, protocol.CodeConfirmRequired)
	after, err := e.getGraph(ctx, target)
	if err != nil {
		return fail("reading %s after the call: %v", target, err)
	}
	var g0, g1 protocol.Graph
	json.Unmarshal(before.body, &g0)
	json.Unmarshal(after.body, &g1)
	changed := !reflect.DeepEqual(g0.Entities, g1.Entities)
	switch {
	case !ok && changed:
		return fail("%s %s without confirm ran: %s, and the page changed", c.Page, c.Name, msg)
	case !ok:
		return fail("%s %s without confirm: %s", c.Page, c.Name, msg)
	case changed:
		return fail("%s %s answered confirm_required, but the page changed", c.Page, c.Name)
	}
	d, _ := res.delta()
	if strings.TrimSpace(d.Error.Message) == "" {
		return fail("confirm_required without a summary for the person")
	}
	return pass("428 with %q", d.Error.Message)
}

func checkRetryAfter(ctx context.Context, e *Env) Outcome {
	if !e.cfg.Burst {
		return skip("sends a burst of calls: opt in with --burst")
	}
	p, a := e.callable(nil)
	if p == nil {
		return skip("no action with an object input that this checker may call")
	}
	for i := 0; i < e.cfg.BurstLimit; i++ {
		res, err := e.post(ctx, p.url, invalidCall(a.Name), "Authorization", e.bearer())
		if err != nil {
			return fail("%v", err)
		}
		if res.status != http.StatusTooManyRequests {
			continue
		}
		if ok, msg := res.failedWith(http.StatusTooManyRequests, protocol.CodeRateLimited); !ok {
			return fail("%s", msg)
		}
		s, err := strconv.Atoi(res.header.Get("Retry-After"))
		if err != nil || s < 1 {
			return fail("Retry-After is %q, not a number of seconds", res.header.Get("Retry-After"))
		}
		return pass("429 after %d calls, Retry-After: %d", i+1, s)
	}
	return skip("no limit was reached in %d calls", e.cfg.BurstLimit)
}

func checkGraphSize(ctx context.Context, e *Env) Outcome {
	if o, ok := needPages(e); !ok {
		return o
	}
	largest, where := 0, ""
	for _, p := range e.pages {
		if n := len(p.resp.body); n > largest {
			largest, where = n, p.url
		}
	}
	if largest/4 > 2000 {
		return fail("%s: about %d tokens (%d bytes)", where, largest/4, largest)
	}
	return pass("largest %s: about %d tokens", where, largest/4)
}
