package main

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/affordances-go/affordances/client"
	"github.com/affordances-go/affordances/internal/mcptools"
	"github.com/affordances-go/affordances/protocol"
)

// mcpCmd runs afford mcp URL: a stdio MCP server that brings the site at
// URL into an MCP host.
func (c *command) mcp(ctx context.Context, args []string) error {
	if len(args) != 1 {
		return usageError("mcp takes the site's URL")
	}
	srv, err := newBridge(ctx, args[0], c.bridgeOptions())
	if err != nil {
		return err
	}
	return srv.Run(ctx, &sdk.StdioTransport{})
}

// bridgeOptions are what the bridge needs of the command's flags.
func (c *command) bridgeOptions() bridgeOptions {
	return bridgeOptions{HTTPClient: &http.Client{Jar: c.jar, Timeout: c.o.timeout}, Token: c.o.token,
		UserAgent: c.o.userAgent, Retries: c.o.retries}
}

type bridgeOptions struct {
	HTTPClient *http.Client
	Token      string
	UserAgent  string
	Retries    int
}

// bridge serves one site's actions as MCP tools, through the client
// library.
type bridge struct {
	base   *url.URL
	opts   bridgeOptions
	tools  map[string]*mcptools.Tool
	secret []byte           // signs the state of approvals, random per run
	used   *mcptools.Nonces // approvals used
}

// newBridge reads the site index and describes its actions as tools, with
// the same names and arguments as the site's own MCP endpoint would.
func newBridge(ctx context.Context, siteURL string, opts bridgeOptions) (*sdk.Server, error) {
	base, err := url.Parse(siteURL)
	if err != nil || base.Scheme == "" || base.Host == "" {
		return nil, usageError(fmt.Sprintf("%q is not a site URL such as http://127.0.0.1:8080", siteURL))
	}
	b := &bridge{base: base, opts: opts, tools: map[string]*mcptools.Tool{}, secret: make([]byte, 32), used: mcptools.NewNonces()}
	rand.Read(b.secret)
	idx, err := b.client(nil).Index(ctx, siteURL)
	if err != nil {
		return nil, fmt.Errorf("reading the site index of %s: %w", siteURL, err)
	}
	name := idx.Name
	if name == "" {
		name = base.Host
	}
	srv := sdk.NewServer(&sdk.Implementation{Name: "afford mcp: " + name, Version: "0"},
		&sdk.ServerOptions{Instructions: mcptools.Instructions})
	for _, t := range mcptools.Describe(idx.Routes) {
		b.tools[t.Def.Name] = t
		srv.AddTool(t.Def, b.call(t))
	}
	srv.AddTool(mcptools.ReadPage, b.readPage)
	srv.AddTool(mcptools.SiteIndex, b.siteIndex)
	return srv, nil
}

// client returns a client of the site whose approver is ask.
func (b *bridge) client(ask client.Approver) *client.Client {
	return client.New(client.Options{HTTPClient: b.opts.HTTPClient, Token: b.opts.Token, UserAgent: b.opts.UserAgent,
		Retries: b.opts.Retries, Approver: ask})
}

// page resolves a page's path against the site.
func (b *bridge) page(path string) string {
	return b.base.ResolveReference(&url.URL{Path: path}).String()
}

// call returns the handler of an action's tool. A confirm action is
// approved by the person through the host's elicitation, never by the
// bridge: the first round asks, with the site's summary and a signed
// state bound to this action, page and input; the call runs when the host
// comes back with the person's accept and that state. A host that cannot
// ask gets the summary, and nothing runs.
func (b *bridge) call(t *mcptools.Tool) sdk.ToolHandler {
	return func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		path, input, siteApproval, bad := t.Arguments(req.Params.Arguments)
		if bad != nil {
			return mcptools.ErrorResult(*bad), nil
		}
		if i := strings.IndexByte(path, '?'); i >= 0 {
			path = path[:i] // the page's query is not part of the call
		}
		if siteApproval != "" {
			// The person approved on the site, the model says: the site
			// checks that they did, for exactly this call.
			return b.callApproved(ctx, path, t, input, siteApproval), nil
		}
		want := mcptools.ConfirmState{Caller: "afford-mcp", Action: t.Action.Name, Page: path, Input: mcptools.Digest(input)}
		approved := false
		if req.Params.RequestState != "" || req.Params.InputResponses != nil {
			st, err := mcptools.Verify(b.secret, b.used, req.Params.RequestState, want, time.Now())
			if err != nil {
				return notApproved(err.Error() + "; nothing ran"), nil
			}
			answer, _ := req.Params.InputResponses[confirmKey].(*sdk.ElicitResult)
			if answer == nil || answer.Action != "accept" {
				return notApproved("the person did not approve; nothing ran"), nil
			}
			if st.Approval != "" {
				return b.callApproved(ctx, path, t, input, st.Approval), nil
			}
			approved = true
		}
		summary := ""
		ask := func(_ context.Context, a client.Approval) (bool, error) {
			summary = a.Summary
			return approved, nil
		}
		res, err := b.client(ask).Call(ctx, b.page(path), t.Action.Name, input)
		var ce *client.Error
		if errors.As(err, &ce) && ce.ApprovalURL != "" {
			// The person approves on the site: a host that can open a URL
			// for them does; any other gets the page in the error result.
			caps := req.ClientCapabilities()
			if caps == nil || caps.Elicitation == nil || caps.Elicitation.URL == nil {
				return notApproved(ce.Message + " Approval page: " + ce.ApprovalURL + " (call again with approval set to it once the person approved)"), nil
			}
			want.Expiry = time.Now().Add(5 * time.Minute).Unix()
			want.Nonce = mcptools.NewNonce()
			want.Approval = ce.ApprovalURL
			return &sdk.CallToolResult{
				InputRequests: sdk.InputRequestMap{confirmKey: &sdk.ElicitParams{Mode: "url", URL: ce.ApprovalURL,
					ElicitationID: want.Nonce, Message: ce.Message}},
				RequestState: mcptools.Sign(b.secret, want),
			}, nil
		}
		switch {
		case errors.Is(err, client.ErrNotApproved):
			if caps := req.ClientCapabilities(); caps == nil || caps.Elicitation == nil {
				return notApproved(summary + " (This host cannot ask the person for approval, so nothing ran.)"), nil
			}
			want.Expiry = time.Now().Add(5 * time.Minute).Unix()
			want.Nonce = mcptools.NewNonce()
			return &sdk.CallToolResult{
				InputRequests: sdk.InputRequestMap{confirmKey: &sdk.ElicitParams{
					Message:         summary + "\n\nApprove? Nothing happens unless you accept.",
					RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{}},
				}},
				RequestState: mcptools.Sign(b.secret, want),
			}, nil
		case err != nil:
			return clientErrorResult(err), nil
		}
		return mcptools.DeltaResult(res.Delta), nil
	}
}

// callApproved completes a call with the person's approval on the site.
func (b *bridge) callApproved(ctx context.Context, path string, t *mcptools.Tool, input []byte, approval string) *sdk.CallToolResult {
	u := approval
	if !strings.Contains(u, "/") {
		u = b.base.ResolveReference(&url.URL{Path: "/approvals/" + u}).String()
	}
	res, err := b.client(nil).CallApproved(ctx, b.page(path), t.Action.Name, json.RawMessage(input), u)
	var ce *client.Error
	if errors.As(err, &ce) && ce.ApprovalURL != "" {
		return notApproved(ce.Message + " Approval page: " + ce.ApprovalURL)
	}
	if err != nil {
		return clientErrorResult(err)
	}
	return mcptools.DeltaResult(res.Delta)
}

// confirmKey names the approval among a result's input requests.
const confirmKey = "confirm"

func notApproved(msg string) *sdk.CallToolResult {
	return mcptools.ErrorResult(protocol.Error{Code: protocol.CodeConfirmRequired, Message: msg})
}

func (b *bridge) readPage(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	var args struct {
		Page string `json:"page"`
	}
	if err := json.Unmarshal(req.Params.Arguments, &args); err != nil || !strings.HasPrefix(args.Page, "/") {
		return mcptools.ErrorResult(protocol.Error{Code: protocol.CodeInvalidInput, Message: "page must be a path starting with /",
			Issues: []protocol.Issue{{Path: "/page", Message: "must be a path starting with /", Keyword: "pattern"}}}), nil
	}
	g, err := b.client(nil).Graph(ctx, b.base.ResolveReference(&url.URL{Path: args.Page}).String()+queryOf(args.Page))
	if err != nil {
		return clientErrorResult(err), nil
	}
	return mcptools.GraphResult(g), nil
}

func (b *bridge) siteIndex(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	idx, err := b.client(nil).Index(ctx, b.base.String())
	if err != nil {
		return clientErrorResult(err), nil
	}
	return &sdk.CallToolResult{StructuredContent: idx, Content: []sdk.Content{&sdk.TextContent{Text: indexText(idx)}}}, nil
}

// queryOf returns the query of a path, with its "?", or "".
func queryOf(path string) string {
	if i := strings.IndexByte(path, '?'); i >= 0 {
		return path[i:]
	}
	return ""
}

// indexText is a short text of the index for the host.
func indexText(idx *protocol.SiteIndex) string {
	var b strings.Builder
	for _, r := range idx.Routes {
		names := make([]string, len(r.Actions))
		for i, a := range r.Actions {
			names[i] = a.Name
		}
		fmt.Fprintf(&b, "%s: %s [%s]\n", r.Route, r.Description, strings.Join(names, ", "))
	}
	return b.String()
}

// clientErrorResult turns the client's error into a tool's error result:
// the server's error as it was, or an internal error for the rest.
func clientErrorResult(err error) *sdk.CallToolResult {
	var ce *client.Error
	if errors.As(err, &ce) {
		return mcptools.ErrorResult(protocol.Error{Code: ce.Code, Message: ce.Message, Issues: ce.Issues})
	}
	return mcptools.ErrorResult(protocol.Error{Code: protocol.CodeInternal, Message: err.Error()})
}
