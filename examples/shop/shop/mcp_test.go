package shop_test

import (
	"context"
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/affordances-go/affordances/examples/shop/shop"
	"github.com/affordances-go/affordances/examples/shop/shoptest"
	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site/sitetest"
)

// bearerTransport sends a bearer token with every request of an MCP client.
type bearerTransport struct{ token string }

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// The tee purchase through the store's own MCP endpoint, with the
// person's approval asked through elicitation.
func TestMCP_BuysATeeThroughTheStoresEndpoint(t *testing.T) {
	ts := newTestShop(t)
	ctx := context.Background()
	var asked []string
	client := sdk.NewClient(&sdk.Implementation{Name: "test host", Version: "0"}, &sdk.ClientOptions{
		ElicitationHandler: func(_ context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			asked = append(asked, req.Params.Message)
			return &sdk.ElicitResult{Action: "accept"}, nil
		}})
	cs, err := client.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: ts.url + "/mcp",
		HTTPClient: &http.Client{Transport: bearerTransport{ts.token}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	_, body := ts.client(t, "").do("GET", protocol.WellKnownPath, nil)
	var idx protocol.SiteIndex
	if json.Unmarshal([]byte(body), &idx); idx.MCP != "/mcp" {
		t.Errorf("the index lists MCP at %q", idx.MCP)
	}
	call := func(name string, args map[string]any) (*sdk.CallToolResult, string) {
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !res.IsError {
			return res, "ok"
		}
		var d protocol.Delta
		b, _ := json.Marshal(res.StructuredContent)
		json.Unmarshal(b, &d)
		return res, string(d.Error.Code)
	}
	if res, code := call("readPage", map[string]any{"page": "/products/heavyweight-tee"}); code != "ok" || !strings.Contains(res.Content[0].(*sdk.TextContent).Text, "Sold out: Black XL") {
		t.Fatalf("readPage: %s", code)
	}
	if _, code := call("addToCart", map[string]any{"page": "/products/heavyweight-tee", "sku": "TEE-BLK-M"}); code != "ok" {
		t.Fatalf("addToCart: %s", code)
	}
	if res, code := call("addToCart", map[string]any{"page": "/products/heavyweight-tee", "sku": "tee-blk-m"}); code != "invalid_input" || !strings.Contains(res.Content[0].(*sdk.TextContent).Text, "/sku") {
		t.Errorf("a bad SKU: %s %+v", code, res.Content)
	}
	if _, code := call("placeOrder", map[string]any{}); code != "ok" {
		t.Fatalf("placeOrder: %s", code)
	}
	if len(asked) != 1 || !strings.Contains(asked[0], "Heavyweight Tee (Black, M)") {
		t.Errorf("asked %q", asked)
	}
	agent := ts.client(t, ts.token)
	if orders := sitetest.Entity[[]struct{ ID int64 }](t, agent.graph("/orders"), "orders"); len(orders) != 1 {
		t.Errorf("orders: %v", orders)
	}
}

// With approvals on the site, an MCP host that can open a URL for the
// person (URL-mode elicitation) gets the approval page; the order runs
// after the person approved there, and not before.
func TestMCP_ApprovalOnTheSiteThroughURLElicitation(t *testing.T) {
	s := shoptest.StartWith(t, shop.Options{})
	ctx := context.Background()
	var opened []string
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test host", Version: "0"}, &sdk.ClientOptions{
		Capabilities: &sdk.ClientCapabilities{Elicitation: &sdk.ElicitationCapabilities{URL: &sdk.URLElicitationCapabilities{}}},
		ElicitationHandler: func(_ context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			opened = append(opened, req.Params.URL)
			if s.Orders(t) != 0 {
				t.Error("the order ran before the person approved")
			}
			personApprovesOn(t, s, req.Params.URL) // the person, in the browser the host opened
			return &sdk.ElicitResult{Action: "accept"}, nil
		}}).Connect(ctx, &sdk.StreamableClientTransport{Endpoint: s.URL + "/mcp",
		HTTPClient: &http.Client{Transport: bearerTransport{s.Token}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	callTool := func(name string, args map[string]any) *sdk.CallToolResult {
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return res
	}
	callTool("addToCart", map[string]any{"page": "/products/heavyweight-tee", "sku": "TEE-BLK-M"})
	if res := callTool("placeOrder", map[string]any{}); res.IsError || s.Orders(t) != 1 {
		t.Fatalf("placeOrder: %+v, %d orders", res.Content, s.Orders(t))
	}
	if len(opened) != 1 || !strings.HasPrefix(opened[0], s.URL+"/approvals/") {
		t.Errorf("the host opened %q", opened)
	}
}

// A host that cannot open a URL gets the approval page in the error
// result; once the person approved, the model calls again with it.
func TestMCP_ApprovalOnTheSiteWithoutURLElicitation(t *testing.T) {
	s := shoptest.StartWith(t, shop.Options{})
	ctx := context.Background()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test host", Version: "0"}, nil).Connect(ctx,
		&sdk.StreamableClientTransport{Endpoint: s.URL + "/mcp", HTTPClient: &http.Client{Transport: bearerTransport{s.Token}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	cs.CallTool(ctx, &sdk.CallToolParams{Name: "addToCart", Arguments: map[string]any{"page": "/products/heavyweight-tee", "sku": "TEE-BLK-M"}})
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "placeOrder", Arguments: map[string]any{}})
	if err != nil || !res.IsError || s.Orders(t) != 0 {
		t.Fatalf("first call: %v %+v", err, res)
	}
	u := regexp.MustCompile(`http://\S+/approvals/[A-Za-z0-9_-]+`).FindString(res.Content[0].(*sdk.TextContent).Text)
	if u == "" {
		t.Fatalf("no approval page in %+v", res.Content)
	}
	// Before the person approved, the approval does not run anything.
	if res, _ := cs.CallTool(ctx, &sdk.CallToolParams{Name: "placeOrder", Arguments: map[string]any{"approval": u}}); !res.IsError || s.Orders(t) != 0 {
		t.Fatalf("an unapproved approval ran: %+v", res.Content)
	}
	personApprovesOn(t, s, u)
	if res, _ := cs.CallTool(ctx, &sdk.CallToolParams{Name: "placeOrder", Arguments: map[string]any{"approval": u}}); res.IsError || s.Orders(t) != 1 {
		t.Fatalf("the approved call: %+v, %d orders", res.Content, s.Orders(t))
	}
}

// personApprovesOn approves on an approval page as the demo person, signed
// in with a session.
func personApprovesOn(t *testing.T, s *shoptest.Shop, u string) {
	t.Helper()
	demo, _ := s.Store.UserByEmail(context.Background(), shop.DemoEmail)
	sess, _ := s.Store.CreateSession(context.Background(), demo)
	req, _ := http.NewRequest("POST", u, strings.NewReader("_decision=approve"))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Cookie", "sid="+sess)
	req.Header.Set("Origin", s.URL)
	res, err := http.DefaultClient.Do(req)
	if err != nil || res.StatusCode != 200 {
		t.Errorf("approving: %v %v", res, err)
		return
	}
	res.Body.Close()
}
