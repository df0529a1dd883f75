package conformance

// The mcp.* checks: the MCP endpoint a site index lists.

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/affordances-go/affordances/internal/mdpage"
	"github.com/affordances-go/affordances/protocol"
)

// checkMCPEndpoint connects to the MCP endpoint of the index (Streamable
// HTTP), which initializes the session, and lists its tools: there must be
// one for every action of the index, named after it (the action's name, or
// it followed by a qualifier such as "_cart" when two routes share it).
func checkMCPEndpoint(ctx context.Context, e *Env) Outcome {
	if e.index == nil {
		return skip("no site index")
	}
	if e.index.MCP == "" {
		return skip("the index lists no MCP endpoint")
	}
	endpoint := e.abs(e.index.MCP)
	if !e.sameSite(endpoint) {
		return skip("the MCP endpoint %s is on another site", endpoint)
	}
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	hc := &http.Client{Transport: headerTransport{token: e.bearer(), base: e.http.Transport}}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "afford-check", Version: "0"}, nil).
		Connect(ctx, &sdk.StreamableClientTransport{Endpoint: endpoint, HTTPClient: hc, MaxRetries: -1, DisableStandaloneSSE: true}, nil)
	if err != nil {
		return fail("%s: initialize failed: %v", endpoint, err)
	}
	defer cs.Close()
	var names []string
	for tl, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return fail("%s: tools/list failed: %v", endpoint, err)
		}
		names = append(names, tl.Name)
	}
	// A door that keeps no cookies may leave out the actions that need
	// them (signing in): when the server has a siteIndex tool, the index
	// as the MCP door sees it is the one its tools must cover, read from
	// its structured content, else from its Markdown (this library's).
	idx, doorIndex := e.index, false
	if hasTool(names, "siteIndex") {
		if res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "siteIndex", Arguments: map[string]any{}}); err == nil && !res.IsError {
			if di, ok := doorIndexOf(res); ok {
				idx, doorIndex = di, true
			}
		}
	}
	var missing []string
	actions := 0
	for _, r := range idx.Routes {
		for _, a := range r.Actions {
			actions++
			if !hasTool(names, a.Name) {
				missing = append(missing, r.Route+" "+a.Name)
			}
		}
	}
	if len(missing) > 0 {
		return fail("%s lists no tool for %s", endpoint, strings.Join(missing, ", "))
	}
	if doorIndex {
		return pass("%d tools for the %d actions of the index as the MCP endpoint sees it", len(names), actions)
	}
	return pass("%d tools for the %d actions of the index", len(names), actions)
}

// hasTool reports whether a tool is named after the action.
func hasTool(names []string, action string) bool {
	for _, n := range names {
		if n == action || (strings.HasPrefix(n, action) && strings.ContainsRune("_.-", rune(n[len(action)]))) {
			return true
		}
	}
	return false
}

// headerTransport adds the checker's bearer token to MCP requests.
type headerTransport struct {
	token string
	base  http.RoundTripper
}

func (t headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	base := t.base
	if base == nil {
		base = http.DefaultTransport
	}
	if t.token != "" {
		r = r.Clone(r.Context())
		r.Header.Set("Authorization", t.token)
		r.Header.Set("User-Agent", "afford-check/0")
	}
	return base.RoundTrip(r)
}

// doorIndexOf reads the routes and actions of a siteIndex result: its
// structured content when it is an index, else the Markdown of its text
// (headings for routes, items for actions, as this library writes it).
func doorIndexOf(res *sdk.CallToolResult) (*protocol.SiteIndex, bool) {
	var di protocol.SiteIndex
	if b, err := json.Marshal(res.StructuredContent); err == nil && json.Unmarshal(b, &di) == nil && len(di.Routes) > 0 {
		return &di, true
	}
	for _, c := range res.Content {
		t, ok := c.(*sdk.TextContent)
		if !ok {
			continue
		}
		at := map[string]int{}
		for _, ra := range mdpage.IndexActions(t.Text) {
			i, seen := at[ra[0]]
			if !seen {
				i = len(di.Routes)
				at[ra[0]] = i
				di.Routes = append(di.Routes, protocol.IndexRoute{Route: ra[0]})
			}
			di.Routes[i].Actions = append(di.Routes[i].Actions, protocol.ActionSummary{Name: ra[1]})
		}
	}
	return &di, len(di.Routes) > 0
}
