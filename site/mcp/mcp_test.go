package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/affordances-go/affordances/internal/syncbuf"
	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site"
	"github.com/affordances-go/affordances/site/mcp"
	"github.com/affordances-go/affordances/site/ratelimit"
)

var ctx = context.Background()

// testShop is a small site with every kind of action, served with its MCP
// endpoint on loopback.
type testShop struct {
	url   string
	audit *syncbuf.Buffer

	mu     sync.Mutex
	stock  int
	orders int
	pings  int
}

type addInput struct {
	SKU string `json:"sku" pattern:"^[A-Z-]+$"`
	Qty int    `json:"qty,omitempty" minimum:"1" maximum:"5"`
}

type orderInput struct {
	Note string `json:"note,omitempty" maxLength:"20"`
}

func (orderInput) Summary(r *site.Request, st *site.State) string {
	return "Place an order for 2 items."
}

func newTestShop(t *testing.T) *testShop { return newTestShopWith(t, false) }

func newTestShopWith(t *testing.T, stateless bool) *testShop {
	return newTestShopOpts(t, mcp.Options{Stateless: stateless})
}

func newTestShopOpts(t *testing.T, o mcp.Options) *testShop {
	ts := &testShop{stock: 3}
	audit := &syncbuf.Buffer{}
	ts.audit = audit
	s := site.New(site.Options{Name: "MCP test shop",
		Logger:      slog.New(slog.DiscardHandler),
		AuditLogger: slog.New(slog.NewJSONHandler(audit, nil)),
		Limits:      site.LimitOptions{Default: ratelimit.Limit{Rate: 1000, Per: time.Minute, Burst: 1000}},
		Auth: site.AuthFunc(func(r *http.Request) (site.Caller, error) {
			if tok, ok := site.BearerToken(r); ok {
				switch tok {
				case "good":
					return site.Caller{ID: "u1", Mode: protocol.AuthBearer, SignedIn: true}, nil
				case "other":
					return site.Caller{ID: "u2", Mode: protocol.AuthBearer, SignedIn: true}, nil
				}
				return site.Caller{}, site.ErrBadToken
			}
			if c, err := r.Cookie("session"); err == nil {
				return site.Caller{ID: "s-" + c.Value, Mode: protocol.AuthCookie, SignedIn: true}, nil
			}
			return site.Caller{}, nil
		})})
	home := s.Page("/", site.PageOptions{Description: "Home", Load: func(r *site.Request) (*site.State, error) {
		return withEntities(&site.State{MD: "# Home"}, map[string]any{"hello": "world"}), nil
	}})
	one := ratelimit.Limit{Rate: 3, Per: time.Hour, Burst: 3}
	site.Handle(home, site.Action{Name: "ping", Description: "Ping", Expose: protocol.ExposePublic, ReadOnly: true, Limit: &one},
		func(r *site.Request, in struct{}) (site.Done, error) {
			ts.mu.Lock()
			ts.pings++
			ts.mu.Unlock()
			return site.Done{Message: "pong"}, nil
		})
	stock := func(r *site.Request) (*site.State, error) {
		if r.PathValue("slug") != "" && r.PathValue("slug") != "tee" {
			return nil, site.ErrNotFound
		}
		ts.mu.Lock()
		defer ts.mu.Unlock()
		return withEntities(&site.State{}, map[string]any{"stock": ts.stock, "orders": ts.orders}), nil
	}
	product := s.Page("/products/{slug}", site.PageOptions{Description: "A product", Load: stock})
	add := func(r *site.Request, in addInput) (site.Result[addInput], error) {
		if in.Qty > 3 {
			return site.Result[addInput]{}, site.Invalid("/qty", "only 3 left")
		}
		return site.Result[addInput]{Output: in, Message: "Added."}, nil
	}
	guard := site.Guard{Text: "in stock", Check: func(r *site.Request, st *site.State) (bool, string) {
		return site.NewKey[int]("stock").Get(st) > 0, "sold out"
	}}
	site.Handle(product, site.Action{Name: "addToCart", Description: "Add to the cart", Expose: protocol.ExposePublic, Guard: guard}, add)
	cart := s.Page("/cart", site.PageOptions{Description: "The cart", Load: stock})
	site.Handle(cart, site.Action{Name: "addToCart", Description: "Add again", Expose: protocol.ExposePublic}, add)
	site.Handle(cart, site.Action{Name: "placeOrder", Description: "Order the cart", Expose: protocol.ExposeConfirm, Effects: site.Effects(site.NewKey[any]("orders"))},
		func(r *site.Request, in orderInput) (site.Done, error) {
			ts.mu.Lock()
			defer ts.mu.Unlock()
			ts.orders++
			return site.Done{Message: "Order placed."}, nil
		})
	site.Handle(cart, site.Action{Name: "review", Description: "Review", Expose: protocol.ExposeSession},
		func(r *site.Request, in struct{}) (site.Done, error) { return site.Done{Message: "Thanks."}, nil })
	site.Handle(cart, site.Action{Name: "secret", Description: "Staff only", Expose: protocol.ExposePublic,
		Visible: func(r *site.Request) bool { return r.Caller.ID == "u2" }},
		func(r *site.Request, in struct{}) (site.Done, error) { return site.Done{}, nil })
	site.Handle(cart, site.Action{Name: "makeToken", Description: "People only", Expose: protocol.ExposeSession, PeopleOnly: true},
		func(r *site.Request, in struct{}) (site.Done, error) { return site.Done{}, nil })
	site.Handle(cart, site.Action{Name: "fail", Description: "Fails", Expose: protocol.ExposePublic},
		func(r *site.Request, in struct{}) (site.Done, error) { return site.Done{}, errors.New("disk on fire") })
	o.Logger, o.ConfirmTTL = slog.New(slog.DiscardHandler), time.Minute
	mcp.Mount(s, "/mcp", &o)
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	ts.url = srv.URL
	return ts
}

// headerTransport adds headers to every request of an MCP client.
type headerTransport struct{ h http.Header }

func (t headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range t.h {
		r.Header[k] = v
	}
	return http.DefaultTransport.RoundTrip(r)
}

func connect(t *testing.T, ts *testShop, opts *sdk.ClientOptions, header ...string) *sdk.ClientSession {
	t.Helper()
	h := http.Header{}
	for i := 0; i+1 < len(header); i += 2 {
		h.Set(header[i], header[i+1])
	}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "0"}, opts).Connect(ctx,
		&sdk.StreamableClientTransport{Endpoint: ts.url + "/mcp", HTTPClient: &http.Client{Transport: headerTransport{h}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func call(t *testing.T, cs *sdk.ClientSession, name string, args any) *sdk.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res
}

// structured decodes a result's structured content.
func structured[T any](t *testing.T, res *sdk.CallToolResult) T {
	t.Helper()
	var v T
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("structured content %s: %v", b, err)
	}
	return v
}

func errorCode(t *testing.T, res *sdk.CallToolResult) string {
	t.Helper()
	if !res.IsError {
		return "ok"
	}
	return string(structured[protocol.Delta](t, res).Error.Code)
}

func TestTools_NamesArgumentsAndVisibility(t *testing.T) {
	ts := newTestShop(t)
	list := func(cs *sdk.ClientSession) map[string]*sdk.Tool {
		res, err := cs.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		m := map[string]*sdk.Tool{}
		for _, tl := range res.Tools {
			m[tl.Name] = tl
		}
		return m
	}
	tools := list(connect(t, ts, nil))
	for _, want := range []string{"readPage", "siteIndex", "ping", "addToCart_productsBySlug", "addToCart_cart", "placeOrder", "review", "fail"} {
		if tools[want] == nil {
			t.Errorf("no tool %s among %v", want, keys(tools))
		}
	}
	if tools["secret"] != nil {
		t.Error("a hidden action is listed")
	}
	if tools["makeToken"] != nil {
		t.Error("a people-only action is a tool")
	}
	if tools := list(connect(t, ts, nil, "Cookie", "session=alice", "Origin", ts.url)); tools["makeToken"] != nil {
		t.Error("a people-only action is a tool for a host with the person's cookie")
	}
	if !tools["ping"].Annotations.ReadOnlyHint || tools["placeOrder"].Annotations.DestructiveHint == nil || !*tools["placeOrder"].Annotations.DestructiveHint {
		t.Errorf("annotations: %+v %+v", tools["ping"].Annotations, tools["placeOrder"].Annotations)
	}
	schema, _ := json.Marshal(tools["addToCart_productsBySlug"].InputSchema)
	if !strings.Contains(string(schema), `"page"`) || !strings.Contains(string(schema), `"required":["page","sku"]`) {
		t.Errorf("input schema of a route with parameters: %s", schema)
	}
	if tools := list(connect(t, ts, nil, "Authorization", "Bearer other")); tools["secret"] == nil {
		t.Error("the action is hidden from the caller it is visible to")
	}
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestCall_SuccessAndEveryErrorAsAnErrorResult(t *testing.T) {
	ts := newTestShop(t)
	cs := connect(t, ts, nil)
	res := call(t, cs, "addToCart_productsBySlug", map[string]any{"page": "/products/tee", "sku": "TEE", "qty": 2})
	if res.IsError || !strings.HasPrefix(res.Content[0].(*sdk.TextContent).Text, "Done: Added.\n") {
		t.Fatalf("addToCart: %+v", res)
	}
	if d := structured[protocol.Delta](t, res); !d.OK || fmt.Sprint(d.Output) != "map[qty:2 sku:TEE]" {
		t.Errorf("delta %+v", d)
	}
	bad := connect(t, ts, nil, "Authorization", "Bearer nope")
	for _, c := range []struct {
		cs   *sdk.ClientSession
		name string
		args map[string]any
		code protocol.ErrorCode
	}{
		{cs, "addToCart_productsBySlug", map[string]any{"page": "/products/nope", "sku": "TEE"}, protocol.CodeNotFound},
		{cs, "addToCart_productsBySlug", map[string]any{"page": "/cart", "sku": "TEE"}, protocol.CodeInvalidInput},
		{cs, "addToCart_productsBySlug", map[string]any{"sku": "TEE"}, protocol.CodeInvalidInput},
		{cs, "addToCart_productsBySlug", map[string]any{"page": "/products/tee", "sku": "tee", "colour": "red"}, protocol.CodeInvalidInput},
		{cs, "addToCart_cart", map[string]any{"sku": "TEE", "qty": 4}, protocol.CodeInvalidInput},
		{cs, "review", map[string]any{}, protocol.CodeUnauthorized},
		{bad, "addToCart_cart", map[string]any{"sku": "TEE"}, protocol.CodeUnauthorized},
		{cs, "secret", map[string]any{}, protocol.CodeNotFound},
		{cs, "fail", map[string]any{}, protocol.CodeInternal},
	} {
		res := call(t, c.cs, c.name, c.args)
		if got := errorCode(t, res); got != string(c.code) {
			t.Errorf("%s %v: %s, want %s: %+v", c.name, c.args, got, c.code, res.Content)
		}
	}
	// Every issue is there, with its path, for a model to correct itself.
	res = call(t, cs, "addToCart_productsBySlug", map[string]any{"page": "/products/tee", "sku": "tee", "colour": "red"})
	if pe := structured[protocol.Delta](t, res).Error; len(pe.Issues) != 2 {
		t.Errorf("issues %+v", pe.Issues)
	}
	// The guard.
	ts.mu.Lock()
	ts.stock = 0
	ts.mu.Unlock()
	if got := errorCode(t, call(t, cs, "addToCart_productsBySlug", map[string]any{"page": "/products/tee", "sku": "TEE"})); got != "unavailable" {
		t.Errorf("sold out: %s", got)
	}
	if strings.Contains(ts.audit.String(), "disk on fire") || !strings.Contains(ts.audit.String(), `"transport":"mcp"`) {
		t.Errorf("audit: %s", ts.audit)
	}
}

// The rate limit of a tool call is the page's: the same caller, route and
// action, whichever the transport.
func TestCall_RateLimitIsSharedWithThePagesPOSTs(t *testing.T) {
	ts := newTestShop(t)
	for range 2 {
		req, _ := http.NewRequest("POST", ts.url+"/", strings.NewReader(`{"action":"ping"}`))
		req.Header.Set("Content-Type", protocol.MediaType)
		req.Header.Set("Authorization", "Bearer good")
		res, err := http.DefaultClient.Do(req)
		if err != nil || res.StatusCode != 200 {
			t.Fatalf("POST: %v %v", res, err)
		}
		res.Body.Close()
	}
	cs := connect(t, ts, nil, "Authorization", "Bearer good")
	if got := errorCode(t, call(t, cs, "ping", map[string]any{})); got != "ok" {
		t.Fatalf("third ping: %s", got)
	}
	if got := errorCode(t, call(t, cs, "ping", map[string]any{})); got != "rate_limited" {
		t.Errorf("fourth ping: %s", got)
	}
}

// An MCP request is held to the Origin rule before anything is read: a
// cookie request without the site's Origin, or any request from another
// site, is refused with 403 (the MCP transport's DNS-rebinding rule).
func TestCall_CookieRequestsFollowTheOriginRule(t *testing.T) {
	ts := newTestShop(t)
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`
	post := func(header ...string) int {
		req, _ := http.NewRequest("POST", ts.url+"/mcp", strings.NewReader(initialize))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	for _, h := range [][]string{
		{"Cookie", "session=alice", "Origin", "http://evil.example"},
		{"Cookie", "session=alice"},
		{"Origin", "http://evil.example"},
		{"Sec-Fetch-Site", "cross-site"},
	} {
		if got := post(h...); got != 403 {
			t.Errorf("%v: %d", h, got)
		}
	}
	if got := post("Authorization", "Bearer good", "Origin", "http://evil.example"); got != 200 {
		t.Errorf("a bearer request is exempt: %d", got)
	}
	same := connect(t, ts, nil, "Cookie", "session=alice", "Origin", ts.url)
	if got := errorCode(t, call(t, same, "review", map[string]any{})); got != "ok" {
		t.Errorf("cookie from the site's origin: %s", got)
	}
}

func TestReading_PageAndIndex(t *testing.T) {
	ts := newTestShop(t)
	cs := connect(t, ts, nil)
	res := call(t, cs, "readPage", map[string]any{"page": "/"})
	if g := structured[protocol.Graph](t, res); res.IsError || g.Route != "/" || !strings.HasPrefix(res.Content[0].(*sdk.TextContent).Text, "# Home\n") {
		t.Errorf("readPage: %+v", res)
	}
	if got := errorCode(t, call(t, cs, "readPage", map[string]any{"page": "/products/nope"})); got != "not_found" {
		t.Errorf("readPage of nothing: %s", got)
	}
	res = call(t, cs, "siteIndex", map[string]any{})
	if text := res.Content[0].(*sdk.TextContent).Text; res.IsError || strings.Count(text, "\n## ") != 3 || !strings.Contains(text, "## /products/[slug]") {
		t.Errorf("siteIndex: %+v", res)
	}
}

// withEntities stores each entity of m in st under its name, as a page's
// keys would.
func withEntities(st *site.State, m map[string]any) *site.State {
	for name, v := range m {
		site.NewKey[any](name).Set(st, v)
	}
	return st
}

// A host that hands the model both a result's text and its structured
// content pays for both: readPage's page Markdown is in the text only,
// and siteIndex answers the index once, as Markdown, in well under half
// the JSON's size, every route and action in it.
func TestReading_NothingTwice(t *testing.T) {
	ts := newTestShop(t)
	cs := connect(t, ts, nil)
	res := call(t, cs, "readPage", map[string]any{"page": "/"})
	if g := structured[protocol.Graph](t, res); g.MD != "" || !strings.HasPrefix(res.Content[0].(*sdk.TextContent).Text, "# Home\n") {
		t.Errorf("readPage: the md in the structured graph %q, the text %q", g.MD, res.Content[0].(*sdk.TextContent).Text)
	}
	res = call(t, cs, "siteIndex", map[string]any{})
	hres, err := http.Get(ts.url + protocol.WellKnownPath)
	if err != nil {
		t.Fatal(err)
	}
	whole, _ := io.ReadAll(hres.Body)
	hres.Body.Close()
	var idx protocol.SiteIndex
	if err := json.Unmarshal(whole, &idx); err != nil {
		t.Fatal(err)
	}
	text := res.Content[0].(*sdk.TextContent).Text
	if res.StructuredContent != nil || 2*len(text) > len(whole) {
		t.Errorf("siteIndex: structured content %v; its text is %d bytes for an index of %d: %s", res.StructuredContent != nil, len(text), len(whole), text)
	}
	for _, r := range idx.Routes {
		if !strings.Contains(text, r.Route) {
			t.Errorf("siteIndex's text leaves the route %s out: %s", r.Route, text)
		}
		for _, a := range r.Actions {
			if !strings.Contains(text, a.Name) {
				t.Errorf("siteIndex's text leaves the action %s out: %s", a.Name, text)
			}
		}
	}
}
