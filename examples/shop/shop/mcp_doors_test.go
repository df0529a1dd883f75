package shop_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/affordances-go/affordances/examples/shop/shop"
	"github.com/affordances-go/affordances/examples/shop/shoptest"
	"github.com/affordances-go/affordances/protocol"
)

// mcpConnect connects an MCP client to the store's endpoint with a bearer
// token ("" for none).
func mcpConnect(t *testing.T, url, token string, opts *sdk.ClientOptions) *sdk.ClientSession {
	t.Helper()
	hc := &http.Client{}
	if token != "" {
		hc.Transport = bearerTransport{token}
	}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test host", Version: "0"}, opts).Connect(context.Background(),
		&sdk.StreamableClientTransport{Endpoint: url + "/mcp", HTTPClient: hc}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func toolDelta(t *testing.T, res *sdk.CallToolResult) protocol.Delta {
	t.Helper()
	var d protocol.Delta
	b, _ := json.Marshal(res.StructuredContent)
	json.Unmarshal(b, &d)
	if res.IsError && d.Error == nil {
		t.Fatalf("an error result without a failed delta: %+v", res.Content)
	}
	return d
}

func text(res *sdk.CallToolResult) string {
	if len(res.Content) == 0 {
		return ""
	}
	return res.Content[0].(*sdk.TextContent).Text
}

// A URL-mode accept means the person opened the approval page, not that
// they approved: the call waits for their decision on the site, and is
// told when it is known.
func TestMCP_URLAcceptWaitsForTheDecisionOnTheSite(t *testing.T) {
	for _, c := range []struct {
		name     string
		decision string // what the person does on the page, "" for nothing
		ran      bool
	}{
		{"approved later", "approve", true},
		{"declined", "decline", false},
		{"undecided", "", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := shoptest.StartWith(t, shop.Options{MCPApprovalWait: 2 * time.Second})
			var completed atomic.Int32
			cs := mcpConnect(t, s.URL, s.Token, &sdk.ClientOptions{
				Capabilities: &sdk.ClientCapabilities{Elicitation: &sdk.ElicitationCapabilities{URL: &sdk.URLElicitationCapabilities{}}},
				ElicitationHandler: func(_ context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
					if c.decision != "" {
						go func() { // the person decides a little after the page opened
							time.Sleep(300 * time.Millisecond)
							personDecidesOn(t, s, req.Params.URL, c.decision)
						}()
					}
					return &sdk.ElicitResult{Action: "accept"}, nil // opened
				},
				ElicitationCompleteHandler: func(context.Context, *sdk.ElicitationCompleteNotificationRequest) { completed.Add(1) },
			})
			cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "addToCart", Arguments: map[string]any{"page": "/products/heavyweight-tee", "sku": "TEE-BLK-M"}})
			res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "placeOrder", Arguments: map[string]any{}})
			if err != nil {
				t.Fatal(err)
			}
			if ran := s.Orders(t) == 1; ran != c.ran || res.IsError == c.ran {
				t.Fatalf("ran %v (want %v): %s", ran, c.ran, text(res))
			}
			if !c.ran {
				d := toolDelta(t, res)
				if d.Error.Code != protocol.CodeConfirmRequired {
					t.Errorf("code %s", d.Error.Code)
				}
				if c.decision == "" && (!strings.HasPrefix(d.ApprovalURL, s.URL+"/approvals/") || !strings.Contains(text(res), "approval set to")) {
					t.Errorf("an undecided approval without its page: %+v %q", d, text(res))
				}
			}
			if c.decision != "" {
				deadline := time.Now().Add(5 * time.Second)
				for completed.Load() == 0 && time.Now().Before(deadline) {
					time.Sleep(20 * time.Millisecond)
				}
				if completed.Load() != 1 {
					t.Errorf("notifications/elicitation/complete: %d", completed.Load())
				}
			}
		})
	}
}

// A host that declares only URL-mode elicitation, on a store without
// approvals, gets the summary in an error result: never a JSON-RPC error
// about a mode it did not declare.
func TestMCP_URLOnlyHostOnPlainConfirmation(t *testing.T) {
	s := shoptest.Start(t) // approvals off: plain confirmation
	cs := mcpConnect(t, s.URL, s.Token, &sdk.ClientOptions{
		Capabilities: &sdk.ClientCapabilities{Elicitation: &sdk.ElicitationCapabilities{URL: &sdk.URLElicitationCapabilities{}}},
		ElicitationHandler: func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			t.Error("asked a URL-only host a form")
			return &sdk.ElicitResult{Action: "accept"}, nil
		}})
	cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "addToCart", Arguments: map[string]any{"page": "/products/heavyweight-tee", "sku": "TEE-BLK-M"}})
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "placeOrder", Arguments: map[string]any{}})
	if err != nil {
		t.Fatalf("a JSON-RPC error: %v", err)
	}
	if d := toolDelta(t, res); !res.IsError || d.Error.Code != protocol.CodeConfirmRequired || !strings.Contains(text(res), "Heavyweight Tee") || s.Orders(t) != 0 {
		t.Fatalf("%+v %q", d, text(res))
	}
}

// The MCP error of an action with approval carries the same fields as the
// delta of a POST (approvalUrl), and says what to do in MCP's terms.
func TestMCP_ApprovalErrorCarriesTheDeltasFields(t *testing.T) {
	s := shoptest.StartWith(t, shop.Options{})
	cs := mcpConnect(t, s.URL, s.Token, nil)
	cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "addToCart", Arguments: map[string]any{"page": "/products/heavyweight-tee", "sku": "TEE-BLK-M"}})
	res, _ := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "placeOrder", Arguments: map[string]any{}})
	d := toolDelta(t, res)
	if !strings.HasPrefix(d.ApprovalURL, s.URL+"/approvals/") || strings.Contains(text(res), "repeat the call with confirm") ||
		!strings.Contains(text(res), "placeOrder again") || !strings.Contains(text(res), d.ApprovalURL) {
		t.Fatalf("%+v\n%s", d, text(res))
	}
	if strings.Contains(d.Error.Message, "repeat the call") || strings.Contains(d.Error.Message, "approval page") {
		t.Errorf("the message the person reads holds instructions for the agent: %q", d.Error.Message)
	}
}

// /mcp reads no more than a call's body limit, and refuses duplicate keys
// in a JSON-RPC message (tool arguments included), as the call decoder
// does.
func TestMCP_SameBodyRulesAsCalls(t *testing.T) {
	s := shoptest.Start(t)
	post := func(body string) int {
		req, _ := http.NewRequest("POST", s.URL+"/mcp", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+s.Token)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	big := `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"` + strings.Repeat("a", 1<<20+10) + `"}}`
	if got := post(big); got != http.StatusRequestEntityTooLarge {
		t.Errorf("a body over 1 MiB: %d", got)
	}
	for _, body := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"readPage","name":"placeOrder","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"addToCart","arguments":{"page":"/products/heavyweight-tee","sku":"TEE-BLK-M","sku":"HOOD-GRE-S"}}}`,
	} {
		if got := post(body); got != http.StatusBadRequest {
			t.Errorf("duplicate keys: %d for %s", got, body)
		}
	}
}

// Over MCP no cookie is kept: signing in, signing up, and a guest's cart
// are neither listed as callable nor run; the tools say how to
// authenticate instead.
func TestMCP_CookieActionsAreNotOffered(t *testing.T) {
	s := shoptest.Start(t)
	cs := mcpConnect(t, s.URL, "", nil)
	list, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range list.Tools {
		if tool.Name == "signIn" || tool.Name == "signUp" {
			t.Errorf("%s is listed over MCP", tool.Name)
		}
	}
	res, _ := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "signIn", Arguments: map[string]any{"email": shop.DemoEmail, "password": shop.DemoPassword}})
	if !res.IsError {
		t.Errorf("signIn ran over MCP: %s", text(res))
	}
	res, _ = cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "addToCart", Arguments: map[string]any{"page": "/products/heavyweight-tee", "sku": "TEE-BLK-M"}})
	if d := toolDelta(t, res); !res.IsError || !strings.Contains(strings.ToLower(d.Error.Message), "token") {
		t.Errorf("an anonymous addToCart over MCP: %q", text(res))
	}
	g, _ := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "readPage", Arguments: map[string]any{"page": "/products/heavyweight-tee"}})
	var graph protocol.Graph
	b, _ := json.Marshal(g.StructuredContent)
	json.Unmarshal(b, &graph)
	for _, a := range graph.Actions {
		if a.Name == "addToCart" && a.Available {
			t.Errorf("addToCart is listed as available to an anonymous MCP caller")
		}
	}
}

// A person who takes longer than the server's WriteTimeout (30 s, as the
// store and docs/deploy.md set it) to answer still gets the answer: the
// order is placed once and the host is told so, on the store's own server
// configuration.
func TestMCP_AConfirmationOfMoreThanTheWriteTimeout(t *testing.T) {
	if testing.Short() && os.Getenv("CI") == "" {
		t.Skip("takes 35 s; runs without -short and in CI")
	}
	t.Parallel()
	ctx := context.Background()
	db, err := shop.Open(ctx, filepath.Join(t.TempDir(), "shop.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	store := shop.NewStore(db)
	store.PasswordIterations = 1000
	if err := store.Seed(ctx); err != nil {
		t.Fatal(err)
	}
	demo, _ := store.UserByEmail(ctx, shop.DemoEmail)
	tok, _ := store.CreateToken(ctx, demo, "t")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := shop.NewServer(ln.Addr().String(), shop.New(store, shop.Options{NoApprovals: true, Logger: quietLogger()}))
	go srv.Serve(ln)
	defer srv.Close()
	url := "http://" + ln.Addr().String()
	var once sync.Once
	cs := mcpConnect(t, url, tok, &sdk.ClientOptions{ElicitationHandler: func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
		once.Do(func() { time.Sleep(35 * time.Second) }) // the person reads, thinks, accepts
		return &sdk.ElicitResult{Action: "accept"}, nil
	}})
	cs.CallTool(ctx, &sdk.CallToolParams{Name: "addToCart", Arguments: map[string]any{"page": "/products/heavyweight-tee", "sku": "TEE-BLK-M"}})
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "placeOrder", Arguments: map[string]any{}})
	if err != nil {
		t.Fatalf("the answer was lost: %v", err)
	}
	orders, _ := store.Orders(ctx, demo)
	if res.IsError || len(orders) != 1 {
		t.Fatalf("%q, %d orders", text(res), len(orders))
	}
}

// personDecidesOn posts the person's decision on an approval page, signed
// in with a session of the demo account.
func personDecidesOn(t *testing.T, s *shoptest.Shop, u, decision string) {
	demo, _ := s.Store.UserByEmail(context.Background(), shop.DemoEmail)
	sess, _ := s.Store.CreateSession(context.Background(), demo)
	req, _ := http.NewRequest("POST", u, strings.NewReader("_decision="+decision))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Cookie", "sid="+sess)
	req.Header.Set("Origin", s.URL)
	res, err := http.DefaultClient.Do(req)
	if err != nil || res.StatusCode != 200 {
		t.Errorf("deciding: %v %v", res, err)
		return
	}
	res.Body.Close()
}

// quietLogger keeps a test's output to warnings and errors.
func quietLogger() *slog.Logger {
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
}

// A tool call with an idempotency key in its _meta runs once, however
// often the host sends it; the repeat's result says it is a replay.
func TestMCP_IdempotencyKeyInMeta(t *testing.T) {
	s := shoptest.Start(t)
	cs := mcpConnect(t, s.URL, s.Token, nil)
	add := func() *sdk.CallToolResult {
		res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "addToCart",
			Meta:      sdk.Meta{"affordances/idempotencyKey": "add-1"},
			Arguments: map[string]any{"page": "/products/heavyweight-tee", "sku": "TEE-BLK-M"}})
		if err != nil || res.IsError {
			t.Fatalf("%v %+v", err, res)
		}
		return res
	}
	first, again := add(), add()
	if first.Meta["affordances/replayed"] != nil || again.Meta["affordances/replayed"] != true {
		t.Errorf("replay marks: %v, %v", first.Meta, again.Meta)
	}
	demo, _ := s.Store.UserByEmail(context.Background(), shop.DemoEmail)
	if c, _ := s.Store.Cart(context.Background(), shop.CartOwner{UserID: demo}); c.Count != 1 {
		t.Fatalf("%d in the cart after one keyed add sent twice", c.Count)
	}
	// A key that breaks the rule is refused, never read as no key: the
	// host meant to protect the call.
	for _, bad := range []any{"", 42, "a b", nil} {
		res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "addToCart",
			Meta:      sdk.Meta{"affordances/idempotencyKey": bad},
			Arguments: map[string]any{"page": "/products/heavyweight-tee", "sku": "TEE-BLK-M"}})
		if err != nil || !res.IsError || !strings.Contains(text(res), "invalid_input") {
			t.Errorf("key %#v: %v %+v", bad, err, res)
		}
	}
	if c, _ := s.Store.Cart(context.Background(), shop.CartOwner{UserID: demo}); c.Count != 1 {
		t.Errorf("%d in the cart after calls with bad keys", c.Count)
	}
}

// A confirmation waiting on a person holds nothing past its deadline:
// once an undecided call has answered (MCPApprovalWait) and the host has
// gone, the process is back to the goroutines it had before the host came.
func TestMCP_AnUndecidedApprovalHoldsNoGoroutine(t *testing.T) {
	s := shoptest.StartWith(t, shop.Options{MCPApprovalWait: 300 * time.Millisecond})
	quiet := func() int {
		// Idle keep-alive connections are the HTTP client's, not the
		// endpoint's: closed, so that what is left is what the calls held.
		http.DefaultTransport.(*http.Transport).CloseIdleConnections()
		for range 5 {
			runtime.GC()
			time.Sleep(50 * time.Millisecond)
		}
		return runtime.NumGoroutine()
	}
	before := quiet()
	for range 5 {
		cs := mcpConnect(t, s.URL, s.Token, &sdk.ClientOptions{
			Capabilities: &sdk.ClientCapabilities{Elicitation: &sdk.ElicitationCapabilities{URL: &sdk.URLElicitationCapabilities{}}},
			ElicitationHandler: func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
				return &sdk.ElicitResult{Action: "accept"}, nil // the page opened; nobody decides
			},
		})
		cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "addToCart", Arguments: map[string]any{"page": "/products/heavyweight-tee", "sku": "TEE-BLK-M"}})
		res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "placeOrder", Arguments: map[string]any{}})
		if err != nil || toolDelta(t, res).Error == nil || toolDelta(t, res).Error.Code != protocol.CodeConfirmRequired {
			t.Fatalf("an undecided approval: %v %+v", err, res)
		}
		cs.Close()
	}
	var after int
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
		if after = quiet(); after <= before+2 {
			break
		}
	}
	t.Logf("undecided approvals: goroutines %d before 5 hosts, %d after", before, after)
	if after > before+2 {
		buf := make([]byte, 1<<16)
		t.Errorf("goroutines %d after 5 undecided approvals, %d before:\n%s", after, before, buf[:runtime.Stack(buf, true)])
	}
	if s.Orders(t) != 0 {
		t.Error("an undecided approval placed an order")
	}
}
