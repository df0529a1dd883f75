package tasks

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/cookiejar"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/affordances-go/affordances/internal/mdpage"
	"github.com/affordances-go/affordances/protocol"
)

// MCPAgent is the store's own MCP endpoint (/mcp): a host connected with
// the person's token, which can open a URL for the person (URL-mode
// elicitation), so that what needs their approval is approved on the
// site. The tool list is read once, as a host sends it with every
// request of a task; the log counts it once.
type MCPAgent struct {
	w     *World
	cs    *mcp.ClientSession
	tools map[string]*mcp.Tool
	log   Log
	// lean: the endpoint lists readPage, siteIndex and callAction only;
	// routes come from the site index, read once at the start.
	lean   bool
	routes map[string]string // action -> route, on the lean endpoint
	// searchable: the index the lean agent read says the catalog (/)
	// can be searched with ?q=.
	searchable bool
}

// NewMCPAgent connects to the store's MCP endpoint and lists its tools.
func NewMCPAgent(ctx context.Context, w *World) (*MCPAgent, error) {
	return newMCPAgent(ctx, w, false)
}

// NewLeanMCPAgent is the same host on the store's lean endpoint
// (mcp.Options.Lean): three tools, and the site index read once for the
// actions' routes.
func NewLeanMCPAgent(ctx context.Context, w *World) (*MCPAgent, error) {
	a, err := newMCPAgent(ctx, w, true)
	if err != nil {
		return nil, err
	}
	res, err := a.call(ctx, "siteIndex", map[string]any{})
	if err != nil {
		return nil, err
	}
	// The index comes as Markdown, which a model reads; the script reads
	// the routes of the actions back from it.
	a.routes = map[string]string{}
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			for _, ra := range mdpage.IndexActions(t.Text) {
				if _, seen := a.routes[ra[1]]; !seen {
					a.routes[ra[1]] = ra[0]
				}
			}
			// The catalog's description follows its heading.
			if _, home, ok := strings.Cut(t.Text, "\n## /\n\n"); ok {
				line, _, _ := strings.Cut(home, "\n")
				a.searchable = strings.Contains(line, "?q=")
			}
		}
	}
	if len(a.routes) == 0 {
		return nil, fmt.Errorf("siteIndex named no action")
	}
	return a, nil
}

func newMCPAgent(ctx context.Context, w *World, lean bool) (*MCPAgent, error) {
	a := &MCPAgent{w: w, lean: lean}
	cs, err := a.connect(ctx, &http.Client{Timeout: 30 * time.Second, Transport: header{"Authorization", "Bearer " + w.Token, http.DefaultTransport}})
	if err != nil {
		return nil, err
	}
	a.cs = cs
	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		return nil, err
	}
	b, _ := json.Marshal(list)
	a.log.listed(string(b))
	a.tools = map[string]*mcp.Tool{}
	for _, t := range list.Tools {
		a.tools[t.Name] = t
	}
	return a, nil
}

func (a *MCPAgent) connect(ctx context.Context, hc *http.Client) (*mcp.ClientSession, error) {
	c := mcp.NewClient(&mcp.Implementation{Name: "tasks", Version: "0"}, &mcp.ClientOptions{
		Capabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{URL: &mcp.URLElicitationCapabilities{}}},
		ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			if req.Params.URL == "" {
				return &mcp.ElicitResult{Action: "decline"}, nil
			}
			// The host opens the approval page for the person, who approves.
			if err := a.w.Approve(ctx, req.Params.URL); err != nil {
				return nil, err
			}
			return &mcp.ElicitResult{Action: "accept"}, nil
		}})
	endpoint := a.w.URL + "/mcp"
	if a.lean {
		endpoint = a.w.URL + leanMCPPath
	}
	return c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: hc}, nil)
}

// Close ends the session.
func (a *MCPAgent) Close() { a.cs.Close() }

// call calls a tool and logs its arguments and what the model reads of its
// result (ModelText).
func (a *MCPAgent) call(ctx context.Context, name string, args map[string]any) (*mcp.CallToolResult, error) {
	res, err := a.cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	w, _ := json.Marshal(map[string]any{"name": name, "arguments": args})
	part := PartAnswer
	switch name {
	case "readPage":
		part = PartRead
	case "siteIndex":
		part = PartList
	}
	if err != nil {
		a.log.add(part, string(w), "")
		return nil, err
	}
	a.log.add(part, string(w), ModelText(res))
	return res, nil
}

// ModelText is what a host hands its model of a tool's result: its text,
// or its structured content as JSON when it has no text, as kimi-code and
// hermes-agent do (they stopped forwarding both, which paid twice for the
// same data). The Playwright paths count their results' text the same
// way. The script itself decides from the structured content, on
// the premise, tested in site/mcp, that the text says the same.
func ModelText(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			b.WriteString(t.Text)
		}
	}
	if b.Len() == 0 && res.StructuredContent != nil {
		j, _ := json.Marshal(res.StructuredContent)
		return string(j)
	}
	return b.String()
}

// Read implements Agent: it reads a page.
func (a *MCPAgent) Read(ctx context.Context, page string) (*protocol.Graph, error) {
	res, err := a.call(ctx, "readPage", map[string]any{"page": page})
	if err != nil {
		return nil, err
	}
	if res.IsError {
		return nil, resultError(res)
	}
	var g protocol.Graph
	return &g, structured(res, &g)
}

// Call implements Agent: it calls an action.
func (a *MCPAgent) Call(ctx context.Context, page, action string, input any) (*protocol.Delta, error) {
	if a.lean {
		args := map[string]any{"page": page, "action": action}
		if input != nil {
			args["input"] = input
		}
		return a.delta(a.call(ctx, "callAction", args))
	}
	t := a.tool(action)
	if t == nil {
		return nil, fmt.Errorf("no tool for %s", action)
	}
	args := map[string]any{}
	if input != nil {
		b, _ := json.Marshal(input)
		json.Unmarshal(b, &args)
	}
	if takesPage(t) {
		args["page"] = page
	}
	return a.delta(a.call(ctx, t.Name, args))
}

// delta is a tool call's delta, or its error.
func (a *MCPAgent) delta(res *mcp.CallToolResult, err error) (*protocol.Delta, error) {
	if err != nil {
		return nil, err
	}
	if res.IsError {
		return nil, resultError(res)
	}
	var d protocol.Delta
	return &d, structured(res, &d)
}

// tool is the tool of an action: its name, or its name qualified by a
// route.
func (a *MCPAgent) tool(action string) *mcp.Tool {
	if t := a.tools[action]; t != nil {
		return t
	}
	for name, t := range a.tools {
		if strings.HasPrefix(name, action+"_") {
			return t
		}
	}
	return nil
}

func takesPage(t *mcp.Tool) bool {
	b, _ := json.Marshal(t.InputSchema)
	var s struct {
		Properties map[string]any `json:"properties"`
	}
	json.Unmarshal(b, &s)
	_, ok := s.Properties["page"]
	return ok
}

// Route reads the route from the tool's description ("… On /checkout."),
// or on the lean endpoint from the site index.
func (a *MCPAgent) Route(action string) string {
	if a.lean {
		return a.routes[action]
	}
	t := a.tool(action)
	if t == nil {
		return ""
	}
	_, after, ok := strings.Cut(t.Description, " On /")
	if !ok {
		return ""
	}
	route, _, _ := strings.Cut("/"+after, ". ")
	return strings.TrimSuffix(route, ".")
}

// Searchable: the tool list says nothing of the catalog's search; the
// index the lean agent read does.
func (a *MCPAgent) Searchable() bool { return a.searchable }

// SignIn calls signIn in a session of its own that keeps cookies and
// sends the site's Origin, as a host with a cookie jar would.
func (a *MCPAgent) SignIn(ctx context.Context, email, password string) error {
	jar, _ := cookiejar.New(nil)
	hc := &http.Client{Jar: jar, Timeout: 30 * time.Second, Transport: header{"Origin", a.w.URL, http.DefaultTransport}}
	cs, err := a.connect(ctx, hc)
	if err != nil {
		return err
	}
	prev := a.cs
	a.cs = cs
	var res *mcp.CallToolResult
	if a.lean {
		res, err = a.call(ctx, "callAction", map[string]any{"page": "/login", "action": "signIn", "input": map[string]any{"email": email, "password": password}})
	} else {
		res, err = a.call(ctx, "signIn", map[string]any{"email": email, "password": password})
	}
	if err == nil && res.IsError {
		err = resultError(res)
	}
	if err != nil {
		a.cs = prev
		cs.Close()
		return err
	}
	prev.Close()
	return nil
}

// Log implements Agent: what the agent sent and read.
func (a *MCPAgent) Log() *Log { return &a.log }

func structured(res *mcp.CallToolResult, v any) error {
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

func resultError(res *mcp.CallToolResult) error {
	var d protocol.Delta
	if structured(res, &d) == nil && d.Error != nil {
		return &CallError{Code: d.Error.Code, Message: d.Error.Message}
	}
	return fmt.Errorf("tool error: %v", res.Content)
}

// header adds a header to every request.
type header struct {
	name, value string
	base        http.RoundTripper
}

func (h header) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set(h.name, h.value)
	return h.base.RoundTrip(r)
}
