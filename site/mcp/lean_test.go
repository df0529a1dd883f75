package mcp_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/affordances-go/affordances/internal/wiretest"
	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site/mcp"
)

// The lean list is three tools, a fraction of the per-action list.
func TestLean_ThreeTools(t *testing.T) {
	lean, err := connect(t, newTestShopOpts(t, mcp.Options{Lean: true}), nil).ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range lean.Tools {
		names = append(names, tl.Name)
	}
	if strings.Join(names, " ") != "callAction readPage siteIndex" {
		t.Fatalf("lean tools: %v", names)
	}
	full, _ := connect(t, newTestShop(t), nil).ListTools(ctx, nil)
	lb, _ := json.Marshal(lean)
	fb, _ := json.Marshal(full)
	if len(lb) >= len(fb) {
		t.Errorf("the lean list is %d bytes, the per-action list %d", len(lb), len(fb))
	}
	t.Logf("tools/list: lean %d bytes, per action %d bytes", len(lb), len(fb))
	wiretest.Golden(t, "tools-list-lean.json", lb)
}

// callAction answers as the per-action tool does: the same delta, the
// same errors, for the same reasons.
func TestLean_CallActionIsThePerActionCall(t *testing.T) {
	ts := newTestShopOpts(t, mcp.Options{Lean: true})
	cs := connect(t, ts, nil)
	res := call(t, cs, "callAction", map[string]any{"page": "/products/tee", "action": "addToCart", "input": map[string]any{"sku": "TEE", "qty": 2}})
	if d := structured[protocol.Delta](t, res); res.IsError || !d.OK || d.Message != "Added." {
		t.Fatalf("addToCart: %+v", res.Content)
	}
	bad := connect(t, ts, nil, "Authorization", "Bearer nope")
	for _, c := range []struct {
		cs   *sdk.ClientSession
		args map[string]any
		code protocol.ErrorCode
	}{
		{cs, map[string]any{"page": "/products/nope", "action": "addToCart", "input": map[string]any{"sku": "TEE"}}, protocol.CodeNotFound},
		{cs, map[string]any{"page": "/products/tee", "action": "nothing"}, protocol.CodeNotFound},
		{cs, map[string]any{"page": "/products/tee", "action": "placeOrder"}, protocol.CodeNotFound},
		{cs, map[string]any{"page": "products", "action": "addToCart"}, protocol.CodeInvalidInput},
		{cs, map[string]any{"page": "/products/tee", "action": "addToCart", "input": map[string]any{"sku": "tee", "colour": "red"}}, protocol.CodeInvalidInput},
		{cs, map[string]any{"page": "/products/tee", "action": "addToCart", "input": map[string]any{"sku": "TEE", "page": "/cart"}}, protocol.CodeInvalidInput},
		{cs, map[string]any{"page": "/cart", "action": "review"}, protocol.CodeUnauthorized},
		{bad, map[string]any{"page": "/cart", "action": "addToCart", "input": map[string]any{"sku": "TEE"}}, protocol.CodeUnauthorized},
		{cs, map[string]any{"page": "/cart", "action": "secret"}, protocol.CodeNotFound},
		{cs, map[string]any{"page": "/cart", "action": "makeToken"}, protocol.CodeUnauthorized},
		{cs, map[string]any{"page": "/cart", "action": "fail"}, protocol.CodeInternal},
	} {
		if got := errorCode(t, call(t, c.cs, "callAction", c.args)); got != string(c.code) {
			t.Errorf("%v: %s, want %s", c.args, got, c.code)
		}
	}
}

// A confirm action through callAction asks the person, as its own tool
// does: declined, nothing runs; accepted, it runs once.
func TestLean_ConfirmAsksThePerson(t *testing.T) {
	for _, answer := range []string{"decline", "accept"} {
		ts := newTestShopOpts(t, mcp.Options{Lean: true})
		asked := 0
		cs := connect(t, ts, &sdk.ClientOptions{ElicitationHandler: func(_ context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			asked++
			return &sdk.ElicitResult{Action: answer}, nil
		}}, "Authorization", "Bearer good")
		res := call(t, cs, "callAction", map[string]any{"page": "/cart", "action": "placeOrder", "input": map[string]any{"note": "gift"}})
		want, orders := "confirm_required", 0
		if answer == "accept" {
			want, orders = "ok", 1
		}
		if got := errorCode(t, res); got != want || ts.orders != orders || asked != 1 {
			t.Errorf("%s: %s, %d orders, asked %d times", answer, got, ts.orders, asked)
		}
	}
}
