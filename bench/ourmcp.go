package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/affordances-go/affordances/client"
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
		Ours: dur(ns(o.nsPerOp)), Baseline: dur(ns(b.nsPerOp)), Ratio: fmt.Sprintf("MCP costs %.2f×", b.nsPerOp/o.nsPerOp),
		Note: "the price of MCP's framing and session on our server"}}, nil
}

// ourMCPTexts runs the tee purchase through the store's /mcp and returns
// what a host reads: the tools/list result and every tool result, as JSON.
func ourMCPTexts(ctx context.Context, e *Env, base string) (toolList, task string, calls int, err error) {
	cs, err := ourSession(ctx, e, base, func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		return &mcp.ElicitResult{Action: "accept"}, nil
	})
	if err != nil {
		return "", "", 0, err
	}
	defer cs.Close()
	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		return "", "", 0, err
	}
	b, _ := json.Marshal(list)
	toolList = string(b)
	var read strings.Builder
	for _, step := range []struct {
		tool string
		args map[string]any
	}{
		{"readPage", map[string]any{"page": productPath}},
		{"addToCart", map[string]any{"page": productPath, "sku": "TEE-BLK-M"}},
		{"placeOrder", map[string]any{}},
	} {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: step.tool, Arguments: step.args})
		if err != nil {
			return "", "", 0, err
		}
		if res.IsError {
			return "", "", 0, fmt.Errorf("%s: %v", step.tool, res.Content)
		}
		b, _ := json.Marshal(res)
		read.WriteString(string(b) + "\n")
		calls++
	}
	return toolList, read.String(), calls, nil
}
