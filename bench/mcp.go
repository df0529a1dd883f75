package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/affordances-go/affordances/client"
	"github.com/affordances-go/affordances/examples/shop/shop"
	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site"
	"github.com/affordances-go/affordances/site/ratelimit"
)

// mcpServer exposes addToCart as an MCP tool with the official Go SDK. The
// tool does what the Affordances action does for a bearer caller: look up
// the token, add to the cart, return the line.
func mcpServer(e *Env) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "heavyweight-supply", Version: "0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "addToCart", Description: "Put one colour and size of a product in the cart"},
		func(ctx context.Context, req *mcp.CallToolRequest, in shop.AddToCart) (*mcp.CallToolResult, shop.CartLine, error) {
			user, _, err := e.store.TokenUser(ctx, e.token, "")
			if err != nil {
				return nil, shop.CartLine{}, err
			}
			line, err := e.store.AddToCart(ctx, shop.CartOwner{UserID: user.ID}, in.SKU, max(in.Qty, 1))
			return nil, line, err
		})
	return s
}

// mcpCompare calls addToCart over loopback HTTP with our client and with
// the MCP Go SDK's client, on a kept session (warm) and with a new
// connection and session per call (cold: what one task of an agent pays).
func mcpCompare(ctx context.Context, e *Env, smoke bool) ([]Row, error) {
	ours, stopOurs, err := serve(e.app)
	if err != nil {
		return nil, err
	}
	defer stopOurs()
	server := mcpServer(e)
	stateful, stopStateful, err := serve(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil))
	if err != nil {
		return nil, err
	}
	defer stopStateful()
	stateless, stopStateless, err := serve(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server },
		&mcp.StreamableHTTPOptions{Stateless: true}))
	if err != nil {
		return nil, err
	}
	defer stopStateless()

	input := map[string]any{"sku": "HOOD-GRE-M", "qty": 1}
	every8 := func(op func() error) func() error {
		return func() error {
			e.beforeAdd(ctx)
			return op()
		}
	}
	fresh := func() *http.Client { return &http.Client{Transport: &http.Transport{}} }

	warm := client.New(client.Options{Token: e.token})
	oursWarm := every8(func() error {
		_, err := warm.Call(ctx, ours+callPath, "addToCart", input)
		return err
	})
	oursCold := every8(func() error {
		hc := fresh()
		defer hc.CloseIdleConnections()
		_, err := client.New(client.Options{Token: e.token, HTTPClient: hc}).Call(ctx, ours+callPath, "addToCart", input)
		return err
	})
	session := func(endpoint string, hc *http.Client) (*mcp.ClientSession, error) {
		return mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "0"}, nil).
			Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: hc}, nil)
	}
	callTool := func(cs *mcp.ClientSession) error {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "addToCart", Arguments: input})
		if err == nil && res.IsError {
			err = fmt.Errorf("tool error: %v", res.Content)
		}
		return err
	}

	var rows []Row
	for _, mode := range []struct {
		name     string
		endpoint string
	}{{"stateful", stateful}, {"stateless", stateless}} {
		cs, err := session(mode.endpoint, fresh())
		if err != nil {
			return nil, fmt.Errorf("MCP %s: %w", mode.name, err)
		}
		e.resetCart(ctx)
		o, b, err := compare(oursWarm, every8(func() error { return callTool(cs) }), 3, smoke)
		cs.Close()
		if err != nil {
			return nil, err
		}
		rows = append(rows, mcpRow("addToCart on a kept connection vs MCP "+mode.name+" session", o, b, smoke))

		e.resetCart(ctx)
		coldMCP := every8(func() error {
			hc := fresh()
			defer hc.CloseIdleConnections()
			cs, err := session(mode.endpoint, hc)
			if err != nil {
				return err
			}
			defer cs.Close()
			return callTool(cs)
		})
		o, b, err = compare(oursCold, coldMCP, 3, smoke)
		if err != nil {
			return nil, err
		}
		rows = append(rows, mcpRow("addToCart, new connection vs new MCP "+mode.name+" session", o, b, smoke))
	}
	e.resetCart(ctx)
	echo, err := echoCompare(ctx, smoke)
	if err != nil {
		return nil, err
	}
	rows = append(rows, echo...)
	own, err := ourMCPCompare(ctx, e, smoke)
	if err != nil {
		return nil, err
	}
	layer, err := ourMCPvsBare(ctx, e, smoke)
	if err != nil {
		return nil, err
	}
	return append(append(rows, own...), layer), nil
}

// Echo is the input and output of the echo action and tool.
type Echo struct {
	Text string `json:"text" maxLength:"100"`
}

// echoCompare isolates what the two protocols cost: an action and a tool
// that do no work at all.
func echoCompare(ctx context.Context, smoke bool) ([]Row, error) {
	s := site.New(site.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Limits: site.LimitOptions{Default: ratelimit.PerMinute(1<<40, 1<<30)}})
	p := s.Page("/echo", site.PageOptions{Description: "Echo"})
	site.Handle(p, site.Action{Name: "echo", Description: "Echo the text", Expose: protocol.ExposePublic, ReadOnly: true},
		func(r *site.Request, in Echo) (site.Result[Echo], error) { return site.Result[Echo]{Output: in}, nil })
	ours, stop, err := serve(s)
	if err != nil {
		return nil, err
	}
	defer stop()
	server := mcp.NewServer(&mcp.Implementation{Name: "echo", Version: "0"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "echo", Description: "Echo the text"},
		func(ctx context.Context, req *mcp.CallToolRequest, in Echo) (*mcp.CallToolResult, Echo, error) {
			return nil, in, nil
		})
	endpoint, stopMCP, err := serve(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil))
	if err != nil {
		return nil, err
	}
	defer stopMCP()

	input := map[string]any{"text": "hello"}
	c := client.New(client.Options{})
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "0"}, nil).
		Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: &http.Client{Transport: &http.Transport{}}}, nil)
	if err != nil {
		return nil, err
	}
	defer cs.Close()
	o, b, err := compare(func() error {
		_, err := c.Call(ctx, ours+"/echo", "echo", input)
		return err
	}, func() error {
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: input})
		return err
	}, 3, smoke)
	if err != nil {
		return nil, err
	}
	return []Row{mcpRow("echo (no work) on a kept connection vs MCP stateful session", o, b, smoke)}, nil
}

func mcpRow(name string, ours, base result, smoke bool) Row {
	speed := 1 / vs(ours, base)
	return Row{Name: name, Ours: dur(ns(ours.nsPerOp)), Baseline: dur(ns(base.nsPerOp)),
		Ratio: fmt.Sprintf("%.2f× faster", speed), Goal: "≥ 4× faster", Met: metOrSmoke(smoke, speed >= 4)}
}
