package mcp

import (
	"context"
	"encoding/json"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/affordances-go/affordances/protocol"
)

var (
	readPageTool = &sdk.Tool{
		Name:        readPageName,
		Title:       "Read a page",
		Description: "Read the graph of a page of this site by its path (such as / or /products/heavyweight-tee): what the page shows (entities), what can be done there (actions, with whether each is available now and why not) and where to go next (nav). Look before you act.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"page":{"type":"string","description":"the path of the page, starting with /"}},"required":["page"],"additionalProperties":false}`),
		Annotations: &sdk.ToolAnnotations{Title: "Read a page", ReadOnlyHint: true},
	}
	siteIndexTool = &sdk.Tool{
		Name:        siteIndexName,
		Title:       "Site index",
		Description: "List every route of this site with what it is for and the actions there, to plan a task without opening pages.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{},"additionalProperties":false}`),
		Annotations: &sdk.ToolAnnotations{Title: "Site index", ReadOnlyHint: true},
	}
)

// readPage answers readPage: the page's graph as structured content and
// its md (or a short line) as text.
func (e *endpoint) readPage(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	var args struct {
		Page string `json:"page"`
	}
	if json.Unmarshal(req.Params.Arguments, &args) != nil || len(args.Page) == 0 || args.Page[0] != '/' {
		return protocolErrorResult(protocol.Error{Code: protocol.CodeInvalidInput, Message: "page must be a path starting with /",
			Issues: []protocol.Issue{{Path: "/page", Message: "must be a path starting with /", Keyword: "pattern"}}}), nil
	}
	g, err := e.site.ReadGraph(callerRequest(req).WithContext(ctx), args.Page)
	if err != nil {
		return errorResult(err), nil
	}
	text := g.MD
	if text == "" {
		text = "The graph of " + g.Page + " (route " + g.Route + ") is in the structured content."
	}
	return &sdk.CallToolResult{StructuredContent: g, Content: []sdk.Content{&sdk.TextContent{Text: text}}}, nil
}

// siteIndex answers siteIndex with the index as this caller sees it.
func (e *endpoint) siteIndex(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	r, err := e.site.NewRequest(callerRequest(req).WithContext(ctx))
	if err != nil {
		return errorResult(err), nil
	}
	idx := e.site.Index(r)
	b, _ := json.Marshal(idx)
	return &sdk.CallToolResult{StructuredContent: idx, Content: []sdk.Content{&sdk.TextContent{Text: string(b)}}}, nil
}

// filterTools leaves out of tools/list the actions hidden from the caller
// (an action's Visible predicate), as the site index does.
func (e *endpoint) filterTools(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		res, err := next(ctx, method, req)
		if err != nil || method != "tools/list" {
			return res, err
		}
		list, ok := res.(*sdk.ListToolsResult)
		if !ok {
			return res, nil
		}
		r, aerr := e.site.NewRequest(callerRequest(req).WithContext(ctx))
		if aerr != nil {
			return nil, aerr
		}
		visible := map[[2]string]bool{}
		for _, rt := range e.site.Index(r).Routes {
			for _, a := range rt.Actions {
				visible[[2]string{rt.Route, a.Name}] = true
			}
		}
		kept := list.Tools[:0:0]
		for _, td := range list.Tools {
			t, isAction := e.tools[td.Name]
			if !isAction || visible[[2]string{t.route, t.action.Name}] {
				kept = append(kept, td)
			}
		}
		list.Tools = kept
		return list, nil
	}
}
