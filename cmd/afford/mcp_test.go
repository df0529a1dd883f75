package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/cookiejar"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/affordances-go/affordances/examples/shop/shoptest"
	"github.com/affordances-go/affordances/protocol"
)

// bridgeSession starts the bridge in process against the store and
// connects an MCP client to it, with an elicitation handler or none.
func bridgeSession(t *testing.T, s *shoptest.Shop, elicit func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error)) *sdk.ClientSession {
	t.Helper()
	ctx := context.Background()
	jar, _ := cookiejar.New(nil)
	srv, err := newBridge(ctx, s.URL, bridgeOptions{HTTPClient: &http.Client{Jar: jar}, Token: s.Token})
	if err != nil {
		t.Fatal(err)
	}
	st, ct := sdk.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test host", Version: "0"}, &sdk.ClientOptions{ElicitationHandler: elicit}).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func toolCall(t *testing.T, cs *sdk.ClientSession, name string, args map[string]any) (*sdk.CallToolResult, string) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	code := "ok"
	if res.IsError {
		var d protocol.Delta
		b, _ := json.Marshal(res.StructuredContent)
		json.Unmarshal(b, &d)
		code = string(d.Error.Code)
	}
	return res, code
}

// The tee purchase through the bridge: read, add, order with the person's
// approval.
func TestBridge_BuysATeeWithThePersonsApproval(t *testing.T) {
	s := shoptest.Start(t)
	var asked []string
	cs := bridgeSession(t, s, func(_ context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
		asked = append(asked, req.Params.Message)
		return &sdk.ElicitResult{Action: "accept"}, nil
	})
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil || len(tools.Tools) < 10 {
		t.Fatalf("tools: %v %d", err, len(tools.Tools))
	}
	res, code := toolCall(t, cs, "readPage", map[string]any{"page": "/products/heavyweight-tee"})
	if code != "ok" || !strings.Contains(res.Content[0].(*sdk.TextContent).Text, "Heavyweight Tee") {
		t.Fatalf("readPage: %s %+v", code, res.Content)
	}
	if _, code := toolCall(t, cs, "addToCart", map[string]any{"page": "/products/heavyweight-tee", "sku": "TEE-BLK-M"}); code != "ok" {
		t.Fatalf("addToCart: %s", code)
	}
	res, code = toolCall(t, cs, "addToCart", map[string]any{"page": "/products/heavyweight-tee", "sku": "NOPE"})
	if code != "unavailable" || !strings.Contains(res.Content[0].(*sdk.TextContent).Text, "NOPE") {
		t.Errorf("a bad SKU: %s %+v", code, res.Content)
	}
	if _, code := toolCall(t, cs, "addToCart", map[string]any{"page": "/cart", "sku": "TEE-BLK-M"}); code != "invalid_input" {
		t.Errorf("a page of another route: %s", code)
	}
	if _, code := toolCall(t, cs, "placeOrder", map[string]any{}); code != "ok" || s.Orders(t) != 1 {
		t.Fatalf("placeOrder: %s, %d orders", code, s.Orders(t))
	}
	if len(asked) != 1 || !strings.Contains(asked[0], "Heavyweight Tee (Black, M)") {
		t.Errorf("the person was asked %q", asked)
	}
}

// Without the person's yes, nothing runs: declined, or a host that cannot
// ask (which then shows the summary).
func TestBridge_NeverConfirmsOnItsOwn(t *testing.T) {
	for _, c := range []struct {
		name   string
		elicit func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error)
	}{
		{"declined", func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			return &sdk.ElicitResult{Action: "decline"}, nil
		}},
		{"no elicitation", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := shoptest.Start(t)
			cs := bridgeSession(t, s, c.elicit)
			toolCall(t, cs, "addToCart", map[string]any{"page": "/products/heavyweight-tee", "sku": "TEE-BLK-M"})
			res, code := toolCall(t, cs, "placeOrder", map[string]any{})
			if code != "confirm_required" || s.Orders(t) != 0 {
				t.Fatalf("%s, %d orders", code, s.Orders(t))
			}
			if c.elicit == nil && !strings.Contains(res.Content[0].(*sdk.TextContent).Text, "Heavyweight Tee (Black, M)") {
				t.Errorf("the summary is not shown: %+v", res.Content)
			}
		})
	}
}
