package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/affordances-go/affordances/internal/route"
	"github.com/affordances-go/affordances/protocol"
)

// Env is what checks run against: the server, the pages found on it, and
// helpers to send requests.
type Env struct {
	cfg   Config
	base  *url.URL
	http  *http.Client
	index *protocol.SiteIndex
	// indexResp is the raw answer for the site index.
	indexResp *response
	pages     []*page
	unreached []string // routes of the index no page was found for
	noGraph   []string // URLs of this site the crawl found without a graph (at most maxNoGraph)
}

// maxNoGraph bounds the URLs without a graph the crawl keeps for the
// pages.link-without-graph check.
const maxNoGraph = 8

// page is one page found with a graph.
type page struct {
	url   string
	graph *protocol.Graph
	resp  *response
}

// response is an HTTP answer, read whole.
type response struct {
	status int
	header http.Header
	body   []byte
}

func (r *response) mediaType() bool {
	mt, _, _ := strings.Cut(r.header.Get("Content-Type"), ";")
	return strings.EqualFold(strings.TrimSpace(mt), protocol.MediaType)
}

// delta decodes the answer as a delta.
func (r *response) delta() (*protocol.Delta, error) {
	if !r.mediaType() {
		return nil, fmt.Errorf("Content-Type %q, not %s", r.header.Get("Content-Type"), protocol.MediaType)
	}
	var d protocol.Delta
	if err := json.Unmarshal(r.body, &d); err != nil {
		return nil, fmt.Errorf("the body is not a delta: %v", err)
	}
	return &d, nil
}

// failedWith reports whether the answer is a failed delta with the status
// and code, and if not, what it was.
func (r *response) failedWith(status int, code protocol.ErrorCode) (bool, string) {
	d, err := r.delta()
	if err != nil {
		return false, fmt.Sprintf("status %d: %v", r.status, err)
	}
	got := "ok"
	if d.Error != nil {
		got = string(d.Error.Code)
	}
	if r.status != status || d.OK || d.Error == nil || d.Error.Code != code {
		return false, fmt.Sprintf("got %d %s, want %d %s", r.status, got, status, code)
	}
	return true, fmt.Sprintf("%d %s", status, code)
}

func newEnv(ctx context.Context, cfg Config) (*Env, error) {
	base, err := url.Parse(strings.TrimRight(cfg.BaseURL, "/") + "/")
	if err != nil || base.Scheme == "" || base.Host == "" {
		return nil, fmt.Errorf("conformance: %q is not an absolute http(s) URL", cfg.BaseURL)
	}
	if cfg.MaxPages <= 0 {
		cfg.MaxPages = 25
	}
	if cfg.BurstLimit <= 0 {
		cfg.BurstLimit = 300
	}
	hc := cfg.HTTPClient
	if hc == nil {
		hc = &http.Client{Timeout: 10 * time.Second,
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	}
	e := &Env{cfg: cfg, base: base, http: hc}
	e.loadIndex(ctx)
	e.crawl(ctx)
	return e, nil
}

// abs resolves a path or URL against the site.
func (e *Env) abs(ref string) string {
	u, err := url.Parse(ref)
	if err != nil {
		return ref
	}
	return e.base.ResolveReference(u).String()
}

// sameSite reports whether an absolute URL is on the checked site.
func (e *Env) sameSite(u string) bool {
	p, err := url.Parse(u)
	return err == nil && p.Scheme == e.base.Scheme && p.Host == e.base.Host
}

// origin is the site's own origin.
func (e *Env) origin() string { return e.base.Scheme + "://" + e.base.Host }

// do sends a request. Headers are name, value pairs; an empty value
// leaves the header out. The checker's credentials go with every request
// (a site whose every page needs sign-in shows the checker its pages)
// unless the pairs name the header themselves: the token, else the
// cookie, with the site's own Origin on a post, as a browser sends it.
func (e *Env) do(ctx context.Context, method, target string, body []byte, header ...string) (*response, error) {
	header = e.withCredentials(method, header)
	for attempt := 0; ; attempt++ {
		out, err := e.send(ctx, method, target, body, header)
		if err != nil {
			return nil, err
		}
		// A site briefly without its data, or busy, answers 503
		// unavailable with Retry-After: the checker waits as asked and
		// asks again (twice at most), as an agent would, rather than
		// judge the site on a moment's outage.
		wait, werr := strconv.Atoi(out.header.Get("Retry-After"))
		if out.status != http.StatusServiceUnavailable || !out.mediaType() || werr != nil || wait > 5 || attempt >= 2 {
			return out, nil
		}
		select {
		case <-ctx.Done():
			return out, nil
		case <-time.After(time.Duration(max(wait, 1)) * time.Second):
		}
	}
}

// send sends one request with the header pairs and reads its answer.
func (e *Env) send(ctx context.Context, method, target string, body []byte, header []string) (*response, error) {
	var r io.Reader
	if body != nil {
		r = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, target, r)
	if err != nil {
		return nil, err
	}
	req.Header.Set("User-Agent", "afford-check/0")
	for i := 0; i+1 < len(header); i += 2 {
		if header[i+1] != "" {
			req.Header.Set(header[i], header[i+1])
		}
	}
	res, err := e.http.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(io.LimitReader(res.Body, 16<<20))
	if err != nil {
		return nil, err
	}
	return &response{status: res.StatusCode, header: res.Header, body: b}, nil
}

// withCredentials adds the checker's credentials to a request's header
// pairs, where they do not name the header already.
func (e *Env) withCredentials(method string, header []string) []string {
	named := map[string]bool{}
	for i := 0; i+1 < len(header); i += 2 {
		named[http.CanonicalHeaderKey(header[i])] = true
	}
	switch {
	case e.cfg.Token != "" && !named["Authorization"]:
		header = append(header, "Authorization", e.bearer())
	case e.cfg.Token == "" && e.cfg.Cookie != "" && !named["Cookie"] && !named["Authorization"]:
		header = append(header, "Cookie", e.cfg.Cookie)
		if method == http.MethodPost && !named["Origin"] {
			header = append(header, "Origin", e.origin())
		}
	}
	return header
}

// getGraph asks for a page's graph with the Accept header and, when the
// checker has one, the token.
func (e *Env) getGraph(ctx context.Context, target string) (*response, error) {
	return e.do(ctx, http.MethodGet, target, nil, "Accept", protocol.MediaType)
}

func (e *Env) bearer() string {
	if e.cfg.Token == "" {
		return ""
	}
	return "Bearer " + e.cfg.Token
}

// post sends a call body with the Affordances Content-Type.
func (e *Env) post(ctx context.Context, target string, body string, header ...string) (*response, error) {
	h := append([]string{"Content-Type", protocol.MediaType, "Accept", protocol.MediaType}, header...)
	return e.do(ctx, http.MethodPost, target, []byte(body), h...)
}

func (e *Env) loadIndex(ctx context.Context) {
	res, err := e.do(ctx, http.MethodGet, e.abs(protocol.WellKnownPath), nil)
	if err != nil {
		return
	}
	e.indexResp = res
	var idx protocol.SiteIndex
	if res.status == http.StatusOK && json.Unmarshal(res.body, &idx) == nil {
		e.index = &idx
	}
}

// Bounds of the crawl.
const (
	maxDepth      = 3 // link hops from the starting URLs
	fetchesByPage = 8 // fetches allowed per page of MaxPages
)

// crawl finds pages with graphs, breadth first and on this site only. It
// starts from the site's root, the configured pages and the index's routes
// without parameters, and follows links from each graph's nav, from
// link-like strings in its entities and from the anchors of its HTML. A
// URL of a route that already has a page is not fetched, so that the pages
// found cover as many routes as they can; configured pages always are. At
// most MaxPages pages, maxDepth hops and fetchesByPage×MaxPages fetches.
// Every route of the index that no page reached is kept for the report.
func (e *Env) crawl(ctx context.Context) {
	type item struct {
		url        string
		depth      int
		configured bool
	}
	queue := []item{{url: e.abs("/")}}
	for _, p := range e.cfg.Pages {
		queue = append(queue, item{url: e.abs(p), configured: true})
	}
	routes := e.indexRoutes()
	for _, r := range routes {
		if !r.rt.HasParams() {
			queue = append(queue, item{url: e.abs(r.route)})
		}
	}
	reached := map[string]bool{}
	seen := map[string]bool{}
	fetches := 0
	for len(queue) > 0 && len(e.pages) < e.cfg.MaxPages && fetches < fetchesByPage*e.cfg.MaxPages {
		it := queue[0]
		queue = queue[1:]
		if seen[it.url] || !e.sameSite(it.url) || strings.Contains(it.url, protocol.WellKnownPath) {
			continue
		}
		seen[it.url] = true
		if r := matchRoute(routes, it.url); r != "" && reached[r] && !it.configured {
			continue
		}
		fetches++
		res, err := e.getGraph(ctx, it.url)
		if err != nil || res.status != http.StatusOK || !res.mediaType() {
			if err == nil && len(e.noGraph) < maxNoGraph {
				e.noGraph = append(e.noGraph, it.url)
			}
			continue
		}
		var g protocol.Graph
		if json.Unmarshal(res.body, &g) != nil {
			continue
		}
		e.pages = append(e.pages, &page{url: it.url, graph: &g, resp: res})
		reached[g.Route] = true
		if it.depth >= maxDepth {
			continue
		}
		var links []string
		for _, n := range g.Nav {
			links = append(links, n.To)
		}
		links = append(links, linkStrings(g.Entities, nil)...)
		if html, err := e.do(ctx, http.MethodGet, it.url, nil, "Accept", "text/html"); err == nil && html.status == http.StatusOK {
			fetches++
			links = append(links, anchors(html.body)...)
		}
		for _, l := range links {
			if u := e.abs(l); e.sameSite(u) && !seen[u] {
				queue = append(queue, item{url: u, depth: it.depth + 1})
			}
		}
	}
	for _, r := range routes {
		if !reached[r.route] {
			e.unreached = append(e.unreached, r.route)
		}
	}
}

// indexRoute is a route of the site index and the paths it matches.
type indexRoute struct {
	route string
	rt    route.Route
}

// indexRoutes parses the routes of the index (package internal/route:
// [name] is one path segment, [...name] the rest of the path); a route
// that does not parse matches nothing.
func (e *Env) indexRoutes() []indexRoute {
	if e.index == nil {
		return nil
	}
	var out []indexRoute
	for _, r := range e.index.Routes {
		if rt, err := route.Parse(r.Route); err == nil {
			out = append(out, indexRoute{route: r.Route, rt: rt})
		}
	}
	return out
}

// matchRoute returns the index route whose pattern the URL's path matches,
// preferring one without parameters, or "".
func matchRoute(routes []indexRoute, u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return ""
	}
	found := ""
	for _, r := range routes {
		if r.rt.Match(p.Path) {
			if !r.rt.HasParams() {
				return r.route
			}
			if found == "" {
				found = r.route
			}
		}
	}
	return found
}

// linkStrings collects the strings of a graph's entities that look like
// links on the site: a path ("/products/tee"), or an absolute http(s) URL.
func linkStrings(v any, out []string) []string {
	switch x := v.(type) {
	case string:
		if len(x) < 2048 && !strings.ContainsAny(x, " \t\n<>\"") &&
			((strings.HasPrefix(x, "/") && !strings.HasPrefix(x, "//")) || strings.HasPrefix(x, "http://") || strings.HasPrefix(x, "https://")) {
			out = append(out, x)
		}
	case map[string]any:
		for _, e := range x {
			out = linkStrings(e, out)
		}
	case []any:
		for _, e := range x {
			out = linkStrings(e, out)
		}
	}
	return out
}

var anchorHref = regexp.MustCompile(`(?is)<a\b[^>]*?\bhref\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))`)

// anchors returns the href of every <a> element of an HTML page, with
// &amp; decoded.
func anchors(body []byte) []string {
	var out []string
	for _, m := range anchorHref.FindAllSubmatch(body, 500) {
		h := string(m[1]) + string(m[2]) + string(m[3])
		out = append(out, strings.ReplaceAll(h, "&amp;", "&"))
	}
	return out
}

// findAction returns a page and an action on it that satisfy pred.
func (e *Env) findAction(pred func(*protocol.ActionDescriptor) bool) (*page, *protocol.ActionDescriptor) {
	for _, p := range e.pages {
		for i := range p.graph.Actions {
			if pred(&p.graph.Actions[i]) {
				return p, &p.graph.Actions[i]
			}
		}
	}
	return nil, nil
}

// objectInput reports whether an input schema requires a JSON object, so
// that an array input is sure to be invalid.
func objectInput(a *protocol.ActionDescriptor) bool {
	var s struct {
		Type any `json:"type"`
	}
	if json.Unmarshal(a.Input, &s) != nil {
		return false
	}
	return s.Type == "object"
}

// requiredInput reports whether an input schema requires some property.
func requiredInput(a *protocol.ActionDescriptor) bool {
	var s struct {
		Required []string `json:"required"`
	}
	return json.Unmarshal(a.Input, &s) == nil && len(s.Required) > 0
}

// invalidCall is a call to the action whose input no object schema
// accepts: a correct server never runs it.
func invalidCall(name string) string {
	b, _ := json.Marshal(map[string]any{"action": name, "input": []any{}})
	return string(b)
}
