package mcp_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/affordances-go/affordances/internal/wiretest"
)

// Confirmation through the MCP endpoint, stateless sessions and the lean list.

// A confirm action runs only when the person accepts, through the host's
// elicitation.
func TestConfirm_ThePersonDecides(t *testing.T) {
	for _, c := range []struct {
		name   string
		answer string // "" for a client that cannot elicit
		ran    bool
		code   string
	}{
		{"accepted", "accept", true, "ok"},
		{"declined", "decline", false, "confirm_required"},
		{"cancelled", "cancel", false, "confirm_required"},
		{"no elicitation", "", false, "confirm_required"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ts := newTestShop(t)
			var asked []string
			opts := &sdk.ClientOptions{}
			if c.answer != "" {
				opts.ElicitationHandler = func(_ context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
					asked = append(asked, req.Params.Message)
					return &sdk.ElicitResult{Action: c.answer}, nil
				}
			}
			cs := connect(t, ts, opts, "Authorization", "Bearer good")
			res := call(t, cs, "placeOrder", map[string]any{"note": "gift"})
			if got := errorCode(t, res); got != c.code {
				t.Fatalf("%s: %+v", got, res.Content)
			}
			if ran := ts.orders == 1; ran != c.ran {
				t.Errorf("ran %v, want %v", ran, c.ran)
			}
			if c.answer != "" && (len(asked) != 1 || !strings.HasPrefix(asked[0], "Place an order for 2 items.")) {
				t.Errorf("asked %q", asked)
			}
			if c.answer == "" && !strings.Contains(res.Content[0].(*sdk.TextContent).Text, "Place an order for 2 items.") {
				t.Errorf("without elicitation the summary is not shown: %+v", res.Content)
			}
		})
	}
}

// A call that brings its own approval state is refused unless the server
// issued that state for exactly this call (see state_test.go for replay
// and binding): a model cannot confirm by forging one.
func TestConfirm_AForgedApprovalIsRefused(t *testing.T) {
	ts := newTestShop(t)
	cs := connect(t, ts, nil, "Authorization", "Bearer good")
	accept := sdk.InputResponseMap{"confirm": &sdk.ElicitResult{Action: "accept"}}
	for _, state := range []string{"", "x", "eyJjIjoiYmVhcmVyOnUxIn0.AAAA", strings.Repeat("A", 200)} {
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "placeOrder", Arguments: map[string]any{}, InputResponses: accept, RequestState: state})
		if err != nil {
			t.Fatal(err)
		}
		if got := errorCode(t, res); got != "confirm_required" {
			t.Errorf("state %q: %s", state, got)
		}
	}
	if ts.orders != 0 {
		t.Fatal("an order ran on a forged approval")
	}
}

// Without sessions, calls work, and a confirm action is still approved by
// the person: the client of the current protocol answers the elicitation
// in a second round, with the signed state.
func TestStateless_CallsAndConfirmation(t *testing.T) {
	ts := newTestShopWith(t, true)
	asked := 0
	cs := connect(t, ts, &sdk.ClientOptions{ElicitationHandler: func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
		asked++
		return &sdk.ElicitResult{Action: "accept"}, nil
	}}, "Authorization", "Bearer good")
	if got := errorCode(t, call(t, cs, "addToCart_cart", map[string]any{"sku": "TEE"})); got != "ok" {
		t.Fatalf("addToCart: %s", got)
	}
	if got := errorCode(t, call(t, cs, "placeOrder", map[string]any{})); got != "ok" || ts.orders != 1 || asked != 1 {
		t.Fatalf("placeOrder: %s, %d orders, asked %d times", got, ts.orders, asked)
	}
}

// The tool list is sent to the model with every request of a host, so it
// is kept lean: no output schemas (the result's structured content is the
// delta, documented once), no form labels in the input schemas, and no
// title repeated in the annotations. The golden file is what a host gets.
func TestTools_ListIsLean(t *testing.T) {
	ts := newTestShop(t)
	res, err := connect(t, ts, nil).ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range res.Tools {
		if tl.OutputSchema != nil {
			t.Errorf("%s has an output schema", tl.Name)
		}
		if tl.Annotations == nil || tl.Annotations.Title != "" || tl.Annotations.OpenWorldHint == nil || *tl.Annotations.OpenWorldHint {
			t.Errorf("%s: annotations %+v, want no title and openWorldHint false", tl.Name, tl.Annotations)
		}
		in, _ := json.Marshal(tl.InputSchema)
		if strings.Contains(string(in), `"title"`) {
			t.Errorf("%s's input schema carries form labels: %s", tl.Name, in)
		}
	}
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	wiretest.Golden(t, "tools-list.json", b)
}
