package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/affordances-go/affordances/bench/tasks"
	"github.com/affordances-go/affordances/client"
	"github.com/affordances-go/affordances/examples/shop/shop"
	"github.com/affordances-go/affordances/protocol"
)

// bearer adds a bearer token to an MCP client's requests.
type bearer struct {
	token string
	base  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.base.RoundTrip(r)
}

// ourSession connects an MCP client to the store's own endpoint with the
// demo token; elicit answers confirmations (nil: the client cannot).
func ourSession(ctx context.Context, e *Env, base string, elicit func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error)) (*mcp.ClientSession, error) {
	return mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "0"}, &mcp.ClientOptions{ElicitationHandler: elicit}).
		Connect(ctx, &mcp.StreamableClientTransport{Endpoint: base + "/mcp",
			HTTPClient: &http.Client{Transport: bearer{e.token, &http.Transport{}}}}, nil)
}

// ourMCPCompare measures the price of MCP on our own server: addToCart as
// a tool call through the store's /mcp against the same call as a POST to
// the page, both on kept connections, both through the same pipeline.
func ourMCPCompare(ctx context.Context, e *Env, smoke bool) ([]Row, error) {
	base, stop, err := serve(e.app)
	if err != nil {
		return nil, err
	}
	defer stop()
	cs, err := ourSession(ctx, e, base, nil)
	if err != nil {
		return nil, err
	}
	defer cs.Close()
	input := map[string]any{"sku": "HOOD-GRE-M", "qty": 1}
	args := map[string]any{"page": "/products/everyday-hoodie", "sku": "HOOD-GRE-M", "qty": 1}
	every8 := func(op func() error) func() error {
		return func() error {
			e.beforeAdd(ctx)
			return op()
		}
	}
	c := client.New(client.Options{Token: e.token})
	e.resetCart(ctx)
	o, b, err := compare(every8(func() error {
		_, err := c.Call(ctx, base+"/products/everyday-hoodie", "addToCart", input)
		return err
	}), every8(func() error {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "addToCart", Arguments: args})
		if err == nil && res.IsError {
			err = fmt.Errorf("tool error: %v", res.Content)
		}
		return err
	}), 3, smoke)
	e.resetCart(ctx)
	if err != nil {
		return nil, err
	}
	return []Row{{Name: "addToCart as a POST vs through our own /mcp (kept connections, same pipeline)",
		Ours: dur(ns(o.nsPerOp)), Baseline: dur(ns(b.nsPerOp)), Ratio: fmt.Sprintf("MCP costs %.2f×", 1/vs(o, b)),
		Note: "the price of MCP's framing and session on our server"}}, nil
}

// ourMCPTexts runs the tee purchase through the store's /mcp and returns
// what a host reads: the tools/list result, and per tool call its
// arguments and what the model reads of its result (tasks.ModelText);
// both is the whole purchase for a host that hands its model a result's
// structured content beside its text.
func ourMCPTexts(ctx context.Context, e *Env, base string) (toolList string, steps []string, both string, err error) {
	return ourMCPPurchase(ctx, e, base, false)
}

// ourMCPPurchase is the purchase through /mcp, on the per-action tool
// list or on the lean one (callAction).
func ourMCPPurchase(ctx context.Context, e *Env, base string, lean bool) (toolList string, steps []string, both string, err error) {
	cs, err := ourSession(ctx, e, base, func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		return &mcp.ElicitResult{Action: "accept"}, nil
	})
	if err != nil {
		return "", nil, "", err
	}
	defer cs.Close()
	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		return "", nil, "", err
	}
	b, _ := json.Marshal(list)
	toolList = string(b)
	type step struct {
		tool string
		args map[string]any
	}
	purchase := []step{
		{"readPage", map[string]any{"page": productPath}},
		{"addToCart", map[string]any{"page": productPath, "sku": "TEE-BLK-M"}},
		{"placeOrder", map[string]any{}},
	}
	if lean {
		purchase = []step{
			{"readPage", map[string]any{"page": productPath}},
			{"callAction", map[string]any{"page": productPath, "action": "addToCart", "input": map[string]any{"sku": "TEE-BLK-M"}}},
			{"callAction", map[string]any{"page": "/checkout", "action": "placeOrder"}},
		}
	}
	var whole strings.Builder
	for _, step := range purchase {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: step.tool, Arguments: step.args})
		if err != nil {
			return "", nil, "", err
		}
		if res.IsError {
			return "", nil, "", fmt.Errorf("%s: %v", step.tool, res.Content)
		}
		args, _ := json.Marshal(step.args)
		steps = append(steps, step.tool+" "+string(args)+"\n"+tasks.ModelText(res)+"\n")
		b, _ := json.Marshal(res)
		whole.WriteString(step.tool + " " + string(args) + "\n" + string(b) + "\n")
	}
	return toolList, steps, whole.String(), nil
}

// bareSameWork is an MCP server written with the MCP Go SDK alone whose
// addToCart tool does the store work our endpoint's tool does: the
// caller's token, the page's state before (the guard: the size in stock),
// the add, the page's state after (the delta), and a result with the
// delta as structured content and its message as text.
func bareSameWork(e *Env) *mcp.Server {
	type args struct {
		Page string `json:"page"`
		SKU  string `json:"sku"`
		Qty  int    `json:"qty,omitempty"`
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "heavyweight-supply", Version: "0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "addToCart", Description: "Put one colour and size of a product in the cart"},
		func(ctx context.Context, req *mcp.CallToolRequest, in args) (*mcp.CallToolResult, protocol.Delta, error) {
			tok, _ := strings.CutPrefix(req.Extra.Header.Get("Authorization"), "Bearer ")
			user, _, err := e.store.TokenUser(ctx, tok, "")
			if err != nil {
				return nil, protocol.Delta{}, err
			}
			owner := shop.CartOwner{UserID: user.ID}
			slug := strings.TrimPrefix(in.Page, "/products/")
			readPage := func() (*shop.Product, shop.Cart, error) {
				p, err := e.store.Product(ctx, slug)
				if err != nil {
					return nil, shop.Cart{}, err
				}
				c, err := e.store.Cart(ctx, owner)
				return p, c, err
			}
			p, _, err := readPage()
			if err != nil {
				return nil, protocol.Delta{}, err
			}
			if v := p.Variant(in.SKU); v == nil || v.Stock == 0 {
				return nil, protocol.Delta{}, fmt.Errorf("%s is out of stock", in.SKU)
			}
			line, err := e.store.AddToCart(ctx, owner, in.SKU, max(in.Qty, 1))
			if err != nil {
				return nil, protocol.Delta{}, err
			}
			_, cart, err := readPage()
			if err != nil {
				return nil, protocol.Delta{}, err
			}
			d := protocol.Delta{OK: true, Changed: map[string]any{"cart": shop.CartSummary{Count: cart.Count, Total: cart.Total}}, Output: line,
				Message: fmt.Sprintf("Added %d × %s (%s, %s) to your cart.", max(in.Qty, 1), line.Product, line.Colour, line.Size)}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: d.Message}}}, d, nil
		})
	return s
}

// ourMCPvsBare measures our MCP layer: addToCart through the store's /mcp
// against the same store work in a tool of the SDK alone, both on a kept
// session of the same kind (stateful, bearer token).
func ourMCPvsBare(ctx context.Context, e *Env, smoke bool) (Row, error) {
	ours, stopOurs, err := serve(e.app)
	if err != nil {
		return Row{}, err
	}
	defer stopOurs()
	bare := bareSameWork(e)
	bareURL, stopBare, err := serve(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return bare }, nil))
	if err != nil {
		return Row{}, err
	}
	defer stopBare()
	connect := func(endpoint string) (*mcp.ClientSession, error) {
		return mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "0"}, nil).
			Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint,
				HTTPClient: &http.Client{Transport: bearer{e.token, &http.Transport{}}}}, nil)
	}
	oursCS, err := connect(ours + "/mcp")
	if err != nil {
		return Row{}, err
	}
	defer oursCS.Close()
	bareCS, err := connect(bareURL)
	if err != nil {
		return Row{}, err
	}
	defer bareCS.Close()
	args := map[string]any{"page": "/products/everyday-hoodie", "sku": "HOOD-GRE-M", "qty": 1}
	call := func(cs *mcp.ClientSession) func() error {
		return func() error {
			e.beforeAdd(ctx)
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "addToCart", Arguments: args})
			if err == nil && res.IsError {
				err = fmt.Errorf("tool error: %v", res.Content)
			}
			return err
		}
	}
	e.resetCart(ctx)
	o, b, err := compare(call(oursCS), call(bareCS), 5, smoke)
	e.resetCart(ctx)
	if err != nil {
		return Row{}, err
	}
	return Row{Name: "addToCart through our /mcp vs a bare go-sdk tool doing the same store work (stateful, bearer)",
		Ours: dur(ns(o.nsPerOp)), Baseline: dur(ns(b.nsPerOp)), Ratio: ratio(vs(o, b), 1),
		Goal: "≤ 1.10×", Met: metOrSmoke(smoke, vs(o, b) <= 1.10),
		Note: "token, page before and after, add, delta: our layer's cost alone"}, nil
}
