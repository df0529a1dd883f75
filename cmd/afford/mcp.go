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

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/affordances-go/affordances/botauth"
	"github.com/affordances-go/affordances/client"
	"github.com/affordances-go/affordances/internal/mcptools"
	"github.com/affordances-go/affordances/internal/mdpage"
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
	return bridgeOptions{HTTPClient: &http.Client{Jar: c.jar, Timeout: c.o.timeout}, Token: c.o.token, Signer: c.signer,
		UserAgent: c.o.userAgent, Retries: c.o.retries}
}

type bridgeOptions struct {
	HTTPClient *http.Client
	Token      string
	Signer     *botauth.Signer
	UserAgent  string
	Retries    int
}

// bridge serves one site's actions as MCP tools, through the client
// library.
type bridge struct {
	base    *url.URL
	opts    bridgeOptions
	tools   map[string]*mcptools.Tool
	names   mcptools.ToolNames     // the tools' names by route and action
	confirm *mcptools.Confirmation // the confirmation flow, shared with the site's endpoint
}

// newBridge reads the site index and describes its actions as tools, with
// the same names and arguments as the site's own MCP endpoint would.
func newBridge(ctx context.Context, siteURL string, opts bridgeOptions) (*sdk.Server, error) {
	base, err := url.Parse(siteURL)
	if err != nil || base.Scheme == "" || base.Host == "" {
		return nil, usageError(fmt.Sprintf("%q is not a site URL such as http://127.0.0.1:8080", siteURL))
	}
	secret := make([]byte, 32) // signs the state of confirmations, random per run
	rand.Read(secret)
	b := &bridge{base: base, opts: opts, tools: map[string]*mcptools.Tool{},
		confirm: &mcptools.Confirmation{Secret: secret, Used: mcptools.NewNonces()}}
	idx, err := b.client().Index(ctx, siteURL)
	if err != nil {
		return nil, fmt.Errorf("reading the site index of %s: %w", siteURL, err)
	}
	name := idx.Name
	if name == "" {
		name = base.Host
	}
	srv := sdk.NewServer(&sdk.Implementation{Name: "afford mcp: " + name, Version: "0"},
		&sdk.ServerOptions{Instructions: mcptools.Instructions})
	list := mcptools.Describe(idx.Routes)
	b.names = mcptools.NamesOf(list)
	b.confirm.Runner = b.runner
	for _, t := range list {
		b.tools[t.Def.Name] = t
		srv.AddTool(t.Def, b.call(t))
	}
	srv.AddTool(mcptools.ReadPage, b.readPage)
	srv.AddTool(mcptools.SiteIndex, b.siteIndex)
	return srv, nil
}

// client returns a client of the site.
func (b *bridge) client() *client.Client {
	return client.New(client.Options{HTTPClient: b.opts.HTTPClient, Token: b.opts.Token, Signer: b.opts.Signer, UserAgent: b.opts.UserAgent,
		Retries: b.opts.Retries, Markdown: true}) // the graph with its md, which readPage's text writes, as on the site's own endpoint
}

// page resolves a page's path against the site.
func (b *bridge) page(path string) string {
	return b.base.ResolveReference(&url.URL{Path: path}).String()
}

// call returns the handler of an action's tool: the confirmation flow the
// site's own endpoint uses, over HTTP. A confirm action is approved by the
// person through the host's elicitation, never by the bridge.
func (b *bridge) call(t *mcptools.Tool) sdk.ToolHandler {
	return func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return b.confirm.Handle(ctx, &httpDoor{b: b, session: req.Session}, t, req), nil
	}
}

// httpDoor runs the calls of one tool call over HTTP.
type httpDoor struct {
	b       *bridge
	session *sdk.ServerSession
}

// Call implements mcptools.Door.
func (d *httpDoor) Call(ctx context.Context, c mcptools.DoorCall) mcptools.DoorResult {
	path := c.Page
	if i := strings.IndexByte(path, '?'); i >= 0 {
		path = path[:i] // the page's query is not part of the call
	}
	delta, err := d.b.client().SendWithKey(ctx, d.b.page(path), protocol.Call{Action: c.Action, Input: c.Input,
		Confirm: c.Confirm, Approval: c.Approval}, c.IdempotencyKey)
	if err == nil {
		return mcptools.DoorResult{Delta: *delta}
	}
	var ce *client.Error
	if errors.As(err, &ce) {
		return mcptools.DoorResult{Delta: protocol.Delta{Error: &protocol.Error{Code: ce.Code, Message: ce.Message, Issues: ce.Issues}, ApprovalURL: ce.ApprovalURL}}
	}
	return mcptools.DoorResult{Delta: protocol.Delta{Error: &protocol.Error{Code: protocol.CodeInternal, Message: err.Error()}}}
}

// ApprovalStatus implements mcptools.Door.
func (d *httpDoor) ApprovalStatus(ctx context.Context, approvalURL string) (string, error) {
	return d.b.client().ApprovalState(ctx, approvalURL)
}

// CallerID implements mcptools.Door: the bridge serves one person.
func (d *httpDoor) CallerID(context.Context) (string, error) { return "afford-mcp", nil }

// Notify implements mcptools.Door.
func (d *httpDoor) Notify(ctx context.Context, elicitationID string) {
	if d.session != nil {
		d.session.NotifyElicitationComplete(ctx, &sdk.ElicitationCompleteParams{ElicitationID: elicitationID})
	}
}

func (b *bridge) readPage(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	var args struct {
		Page string `json:"page"`
	}
	if err := json.Unmarshal(req.Params.Arguments, &args); err != nil || !strings.HasPrefix(args.Page, "/") {
		return mcptools.ErrorResult(protocol.Error{Code: protocol.CodeInvalidInput, Message: "page must be a path starting with /",
			Issues: []protocol.Issue{{Path: "/page", Message: "must be a path starting with /", Keyword: "pattern"}}}), nil
	}
	g, err := b.client().Graph(ctx, b.base.ResolveReference(&url.URL{Path: args.Page}).String()+queryOf(args.Page))
	if err != nil {
		return clientErrorResult(err), nil
	}
	return mcptools.GraphResult(g, b.runner(g.Route)), nil
}

// runner is how a model on the bridge runs the actions of a page of
// route: each by its tool.
func (b *bridge) runner(route string) mdpage.Runner {
	return mcptools.PageRunner(b.names, route, false)
}

func (b *bridge) siteIndex(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	idx, err := b.client().Index(ctx, b.base.String())
	if err != nil {
		return clientErrorResult(err), nil
	}
	return mcptools.IndexResult(*idx), nil
}

// queryOf returns the query of a path, with its "?", or "".
func queryOf(path string) string {
	if i := strings.IndexByte(path, '?'); i >= 0 {
		return path[i:]
	}
	return ""
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
