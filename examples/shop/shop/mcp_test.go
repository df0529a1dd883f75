package shop_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

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
	if res, code := call("readPage", map[string]any{"page": "/products/heavyweight-tee"}); code != "ok" || !strings.Contains(res.Content[0].(*sdk.TextContent).Text, "Black M") {
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
