package mcp_test

import (
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site/mcp"
)

// text is the text a host hands the model of a result: many hosts forward
// a result's content and its structured content only when there is no
// content, so the text alone must say everything the model needs.
func text(res *sdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if t, ok := c.(*sdk.TextContent); ok {
			b.WriteString(t.Text)
		}
	}
	return b.String()
}

// readPage's text is the whole page for a model: what it shows (its md,
// or its entities), every action with whether it can run now and why not,
// and the tool that runs each; the graph stays the structured content.
func TestText_ReadPageSaysWhatThePageOffers(t *testing.T) {
	ts := newTestShop(t)
	ts.mu.Lock()
	ts.stock = 0
	ts.mu.Unlock()
	cs := connect(t, ts, nil, "Authorization", "Bearer good")
	res := call(t, cs, "readPage", map[string]any{"page": "/products/tee"})
	got := text(res)
	for _, want := range []string{"stock", "`addToCart`", "Not available: sold out", "addToCart_productsBySlug"} {
		if !strings.Contains(got, want) {
			t.Errorf("readPage's text leaves out %q:\n%s", want, got)
		}
	}
	if g := structured[protocol.Graph](t, res); len(g.Actions) != 1 || g.Actions[0].Name != "addToCart" {
		t.Errorf("readPage's structured content is not the graph: %+v", g)
	}

	res = call(t, cs, "readPage", map[string]any{"page": "/cart"})
	got = text(res)
	for _, want := range []string{"`placeOrder`", "`review`"} {
		if !strings.Contains(got, want) {
			t.Errorf("the cart's text leaves out %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "POST") {
		t.Errorf("over MCP an action runs as a tool, never as a POST:\n%s", got)
	}
}

// On the lean list no tool carries an action's input, so readPage's text
// writes each action's input.
func TestText_LeanReadPageWritesTheInputs(t *testing.T) {
	cs := connect(t, newTestShopOpts(t, mcp.Options{Lean: true}), nil)
	got := text(call(t, cs, "readPage", map[string]any{"page": "/products/tee"}))
	for _, want := range []string{"`addToCart`", "Input: `qty`", "`sku`"} {
		if !strings.Contains(got, want) {
			t.Errorf("lean readPage's text leaves out %q:\n%s", want, got)
		}
	}
}

// A call's text is the whole delta for a model: its message, its output,
// what changed and where to go next.
func TestText_ACallSaysWhatChanged(t *testing.T) {
	cs := connect(t, newTestShop(t), nil)
	res := call(t, cs, "addToCart_productsBySlug", map[string]any{"page": "/products/tee", "sku": "TEE", "qty": 2})
	got := text(res)
	for _, want := range []string{"Added.", `"qty":2`, `"sku":"TEE"`} {
		if !strings.Contains(got, want) {
			t.Errorf("the call's text leaves out %q:\n%s", want, got)
		}
	}
	if d := structured[protocol.Delta](t, res); !d.OK || d.Message != "Added." {
		t.Errorf("the call's structured content is not its delta: %+v", d)
	}
}
