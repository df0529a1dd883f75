package tasks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/affordances-go/affordances/client"
	"github.com/affordances-go/affordances/protocol"
)

// SnapshotAgent is the baseline: Playwright MCP driving Chromium in the
// person's signed-in browser, reading each page as an accessibility
// snapshot and acting with the page's own controls (typing, choosing,
// clicking), WebMCP off. Its log is what such an agent reads (the tool
// list once, every tool result) and writes (every tool call).
//
// A script cannot read a snapshot as a model does, so it decides from the
// same page's graph, fetched beside the browser in another session of the
// same person and not counted: the agent's tokens are the snapshots'.
// Before a confirm action's button, the agent asks the person in its
// chat, as the graph path does for a session.
type SnapshotAgent struct {
	w       *World
	webmcp  bool            // the page's WebMCP tools, where they do the action
	current map[string]bool // the tools the browser lists now (a page without the script has no readPage)
	seen    map[string]bool // tools listed to the agent already
	cs      *mcp.ClientSession
	log     Log
	graphs  *client.Client // the script's eyes, not counted
	eyes    *http.Client   // the same, for a page's HTML
	person  *person        // with WebMCP: presses the button of a form the agent's tool filled in
	dir     string
	snap    string // the last snapshot read
	// hostTools are the browser tools the host lists to its agent, as a
	// host configured for one kind of work does (a tool filter): the
	// tools this path's agent calls, and every tool a page registers.
	// The agent cannot call another.
	hostTools map[string]bool
}

// The browser tools each path's agent calls, and so the host lists: the
// snapshot path reads and works the page's controls; the WebMCP path
// reads pages and calls their tools, and works controls only where no
// tool may act (a people-only action, a confirmation the person makes).
var (
	snapshotHostTools = []string{"browser_navigate", "browser_snapshot", "browser_click", "browser_type", "browser_select_option"}
	webmcpHostTools   = []string{"browser_navigate", "browser_snapshot", "browser_click", "browser_type"}
)

// TokensDir is bench/tokens, where the Node side of the benchmarks is:
// the o200k tokenizer, Playwright MCP and the browser paths' scripts.
func TokensDir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "tokens")
}

// PlaywrightMCP is Playwright MCP's command line in bench/tokens.
func PlaywrightMCP() string {
	return filepath.Join(TokensDir(), "node_modules", "@playwright", "mcp", "cli.js")
}

// NewSnapshotAgent starts Playwright MCP on a browser already signed in as
// the person. With webmcp, Chromium runs with WebMCP on, and the agent
// calls the tools the store's pages register (webmcp_ACTION) instead of
// typing and clicking; a confirm action's tool only asks for the person,
// who then presses the page's button (the agent fills the form for them).
func NewSnapshotAgent(ctx context.Context, w *World, webmcp bool) (*SnapshotAgent, error) {
	cli := PlaywrightMCP()
	if _, err := os.Stat(cli); err != nil {
		return nil, fmt.Errorf("no Playwright MCP (npm ci --prefix bench/tokens): %w", err)
	}
	if webmcp {
		if err := AgentWebMCP(); err != nil {
			return nil, err
		}
	}
	dir, err := os.MkdirTemp("", "tasks-playwright-")
	if err != nil {
		return nil, err
	}
	a := &SnapshotAgent{w: w, dir: dir, webmcp: webmcp, seen: map[string]bool{}, hostTools: map[string]bool{}}
	host := snapshotHostTools
	if webmcp {
		host = webmcpHostTools
	}
	for _, name := range host {
		a.hostTools[name] = true
	}
	// The person's browser: a session of theirs in its cookies.
	sess, err := w.Store.CreateSession(ctx, w.UserID)
	if err != nil {
		return nil, err
	}
	u, _ := url.Parse(w.URL)
	state, _ := json.Marshal(map[string]any{"cookies": []map[string]any{{"name": "sid", "value": sess, "domain": u.Hostname(), "path": "/",
		"expires": -1, "httpOnly": true, "secure": false, "sameSite": "Lax"}}, "origins": []any{}})
	statePath := filepath.Join(dir, "state.json")
	if err := os.WriteFile(statePath, state, 0o600); err != nil {
		return nil, err
	}
	args := []string{cli, "--headless", "--isolated", "--no-sandbox", "--executable-path", chromium(),
		"--output-dir", dir, "--storage-state", statePath}
	if webmcp {
		if a.person, err = newPerson(w.URL); err != nil {
			return nil, err
		}
		config := filepath.Join(dir, "config.json")
		if err := os.WriteFile(config, []byte(`{"browser":{"launchOptions":{"args":["`+WebMCPFeatures+`","`+a.person.flag()+`"]}}}`), 0o600); err != nil {
			return nil, err
		}
		args = append(args, "--config", config, "--init-script", AgentSideScript())
	} else {
		args = append(args, "--no-webmcp")
	}
	cmd := exec.Command("node", args...)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "tasks", Version: "0"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	a.cs = cs
	all, err := cs.ListTools(ctx, nil)
	if err != nil {
		a.Close()
		return nil, err
	}
	b, _ := json.Marshal(all.Tools)
	a.log.HostList = string(b)
	listed := a.listed(all.Tools)
	b, _ = json.Marshal(listed)
	a.log.listed(string(b))
	for _, t := range listed {
		a.seen[t.Name] = true
	}
	// The script's eyes: the same person, its own session.
	sess2, err := w.Store.CreateSession(ctx, w.UserID)
	if err != nil {
		a.Close()
		return nil, err
	}
	jar, _ := cookiejar.New(nil)
	jar.SetCookies(u, []*http.Cookie{{Name: "sid", Value: sess2, Path: "/"}})
	a.eyes = &http.Client{Jar: jar, Timeout: 30 * time.Second}
	a.graphs = client.New(client.Options{HTTPClient: a.eyes})
	return a, nil
}

// chromium is Debian's Chromium, or $CHROMIUM.
func chromium() string {
	if c := os.Getenv("CHROMIUM"); c != "" {
		return c
	}
	return "/usr/bin/chromium"
}

// Close stops Playwright MCP and its browser.
func (a *SnapshotAgent) Close() {
	if a.cs != nil {
		a.cs.Close()
	}
	os.RemoveAll(a.dir)
}

// listed are the tools of the server's list that the host passes on to
// its agent (hostTools, and the page's own).
func (a *SnapshotAgent) listed(tools []*mcp.Tool) []*mcp.Tool {
	var out []*mcp.Tool
	for _, t := range tools {
		if a.lists(t.Name) {
			out = append(out, t)
		}
	}
	return out
}

// lists reports whether the host lists the tool named name to its agent.
func (a *SnapshotAgent) lists(name string) bool {
	return a.hostTools[name] || strings.HasPrefix(name, "webmcp_")
}

// tool calls a Playwright MCP tool and logs it; it returns the result's
// text. A tool the host does not list is an error: the agent could not
// have known it.
func (a *SnapshotAgent) tool(ctx context.Context, name string, args map[string]any) (string, error) {
	if !a.lists(name) {
		return "", fmt.Errorf("the host lists no tool %s to this path's agent", name)
	}
	res, err := a.cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	w, _ := json.Marshal(map[string]any{"name": name, "arguments": args})
	part := PartAnswer
	if name == "browser_navigate" || name == "browser_snapshot" || strings.HasSuffix(name, "readPage") {
		part = PartRead
	}
	if err != nil {
		a.log.add(part, string(w), "")
		return "", err
	}
	var text strings.Builder
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			text.WriteString(t.Text + "\n")
		}
	}
	a.log.add(part, string(w), text.String())
	if res.IsError {
		return "", fmt.Errorf("%s: %.300s", name, text.String())
	}
	return text.String(), nil
}

// act runs a tool and keeps the page snapshot it gave, or reads one (this
// version of Playwright MCP writes a navigation's snapshot to a file).
// With WebMCP, the agent reads the page through its readPage tool (the
// page as Markdown) instead, and takes a snapshot only when it must
// press a button itself (ref).
func (a *SnapshotAgent) act(ctx context.Context, name string, args map[string]any) (string, error) {
	t, err := a.tool(ctx, name, args)
	if err != nil {
		return "", err
	}
	if a.webmcp {
		if err := a.newTools(ctx); err != nil {
			return "", err
		}
	}
	if !strings.Contains(t, "```yaml") {
		read := "browser_snapshot"
		if a.webmcp && a.current["webmcp_readPage"] {
			read = "webmcp_readPage"
		}
		s, err := a.tool(ctx, read, map[string]any{})
		if err != nil {
			return "", err
		}
		t += s
	}
	a.snap = t
	return t, nil
}

// snapshot makes sure the last page read has its snapshot, whose element
// refs a click needs.
func (a *SnapshotAgent) snapshot(ctx context.Context) error {
	if strings.Contains(a.snap, "```yaml") {
		return nil
	}
	s, err := a.tool(ctx, "browser_snapshot", map[string]any{})
	if err != nil {
		return err
	}
	a.snap += s
	return nil
}

// newTools logs the tools a page registered that the agent had not seen,
// as a host hands them to its model after tools/list_changed: each
// definition once.
func (a *SnapshotAgent) newTools(ctx context.Context) error {
	list, err := a.cs.ListTools(ctx, nil)
	if err != nil {
		return err
	}
	var fresh []*mcp.Tool
	a.current = map[string]bool{}
	for _, t := range a.listed(list.Tools) {
		a.current[t.Name] = true
		if !a.seen[t.Name] {
			a.seen[t.Name] = true
			fresh = append(fresh, t)
		}
	}
	if len(fresh) > 0 {
		b, _ := json.Marshal(fresh)
		a.log.listed(string(b))
	}
	return nil
}

// Read opens the page in the browser (the snapshot is what the agent
// reads) and returns its graph for the script.
func (a *SnapshotAgent) Read(ctx context.Context, page string) (*protocol.Graph, error) {
	if _, err := a.act(ctx, "browser_navigate", map[string]any{"url": a.w.URL + page}); err != nil {
		return nil, err
	}
	return a.graphs.Graph(ctx, a.w.URL+page)
}

// Call does the action with the page's controls: on the page (opened if
// the browser is elsewhere), the action's fields, then its button.
func (a *SnapshotAgent) Call(ctx context.Context, page, action string, input any) (*protocol.Delta, error) {
	if !strings.Contains(a.snap, "Page URL: "+a.w.URL+page+"\n") {
		if _, err := a.act(ctx, "browser_navigate", map[string]any{"url": a.w.URL + page}); err != nil {
			return nil, err
		}
	}
	g, err := a.graphs.Graph(ctx, a.w.URL+page)
	if err != nil {
		return nil, err
	}
	if d, ok := ActionOf(g, action); ok && d.Expose == protocol.ExposeConfirm {
		a.w.Approvals++ // the agent asks the person in its chat; they say yes
	}
	in := map[string]any{}
	if input != nil {
		b, _ := json.Marshal(input)
		json.Unmarshal(b, &in)
	}
	// The tool of a form that changes something fills the form in, and
	// the person presses its button (they see it marked); the tool's
	// result is the call's. A people-only action is no tool: the agent
	// uses the page's controls.
	if a.webmcp && a.seen["webmcp_"+action] {
		args := in
		var stop func() error
		if a.personPresses(ctx, page, action) {
			args = formFields(in)
			stop = a.person.pressWhenAsked(ctx)
		}
		_, err := a.tool(ctx, "webmcp_"+action, args)
		if stop != nil {
			if perr := stop(); err != nil && perr != nil {
				err = fmt.Errorf("%w (and %v)", err, perr)
			}
		}
		if err == nil {
			a.snap = "" // the page showed its new state, or the next page
			return &protocol.Delta{OK: true, Message: "Done through the page's tool."}, nil
		} else if !strings.Contains(err.Error(), "must confirm") {
			return nil, err
		}
		// The tool asked for the person: they press the page's button,
		// with the form filled as the call would have it.
	}
	str := func(k string) string { s, _ := in[k].(string); return s }
	switch action {
	case "addToCart":
		if err := a.snapshot(ctx); err != nil { // the page may have been read as Markdown
			return nil, err
		}
		if err := a.selectIn(ctx, "Colour and size", str("sku")); err != nil {
			return nil, err
		}
		if q, ok := in["qty"].(float64); ok && q != 1 {
			if err := a.typeIn(ctx, "spinbutton", "Quantity", fmt.Sprint(q), false); err != nil {
				return nil, err
			}
		}
		err = a.click(ctx, "button", "Add to cart")
	case "setQuantity":
		// The line's own controls, named by what it is (the page shows no
		// SKU): its quantity, then its Update button.
		line, lerr := cartLine(g, str("sku"))
		if lerr != nil {
			return nil, lerr
		}
		if err := a.typeIn(ctx, "spinbutton", "Quantity of "+line, fmt.Sprint(in["qty"]), false); err != nil {
			return nil, err
		}
		err = a.click(ctx, "button", "Update "+line)
	case "removeFromCart":
		line, lerr := cartLine(g, str("sku"))
		if lerr != nil {
			return nil, lerr
		}
		err = a.click(ctx, "button", "Remove "+line)
	case "placeOrder":
		if ad, ok := in["address"].(map[string]any); ok {
			for _, f := range [][2]string{{"name", "Name"}, {"street", "Street and number"}, {"postcode", "Postcode"}, {"city", "City"}} {
				if err := a.typeIn(ctx, "textbox", f[1], fmt.Sprint(ad[f[0]]), false); err != nil {
					return nil, err
				}
			}
			if err := a.selectIn(ctx, "Country", fmt.Sprint(ad["country"])); err != nil {
				return nil, err
			}
		}
		if in["saveAddress"] == true {
			if err := a.click(ctx, "checkbox", "Save this address"); err != nil {
				return nil, err
			}
		}
		err = a.click(ctx, "button", "Place order")
	case "cancelOrder":
		if err = a.click(ctx, "button", "Cancel order"); err == nil && strings.Contains(a.snap, `button "Confirm"`) {
			err = a.click(ctx, "button", "Confirm")
		}
	case "createToken":
		// What the token may do is chosen on the form: a call without
		// actions is one that may do everything.
		if err = a.typeIn(ctx, "textbox", "Label", str("label"), false); err == nil {
			if err = a.click(ctx, "radio", "Everything you can do"); err == nil {
				err = a.click(ctx, "button", "Create token")
			}
		}
	case "revokeToken":
		var ts struct {
			Tokens []struct {
				ID    int64  `json:"id"`
				Label string `json:"label"`
			} `json:"tokens"`
		}
		if err := Entity(g, "tokens", &ts); err != nil {
			return nil, err
		}
		for _, t := range ts.Tokens {
			if float64(t.ID) == in["id"] {
				err = a.click(ctx, "button", "Revoke "+t.Label)
			}
		}
	default:
		return nil, fmt.Errorf("the browser agent has no way to %s", action)
	}
	if err != nil {
		return nil, err
	}
	if strings.Contains(a.snap, `role="alert"`) || strings.Contains(a.snap, "- alert") {
		return nil, errors.New("the page shows an error")
	}
	return &protocol.Delta{OK: true, Message: "Done in the browser."}, nil
}

// Route: a browser agent knows no route before it reads pages.
func (a *SnapshotAgent) Route(string) string { return "" }

// Searchable: the catalog's search box is on the page, not known before.
func (a *SnapshotAgent) Searchable() bool { return false }

// SignIn: the browser is the person's, signed in already.
func (a *SnapshotAgent) SignIn(context.Context, string, string) error { return nil }

// Log implements Agent: what the agent sent and read.
func (a *SnapshotAgent) Log() *Log { return &a.log }
