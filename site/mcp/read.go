package mcp

import (
	"context"
	"encoding/json"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/affordances-go/affordances/internal/mcptools"
	"github.com/affordances-go/affordances/internal/mdpage"
	"github.com/affordances-go/affordances/protocol"
)

// readPage answers readPage: the page's graph as structured content and
// the page as Markdown in the text, its actions run as this endpoint runs
// them.
func (e *endpoint) readPage(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	var args struct {
		Page string `json:"page"`
	}
	if json.Unmarshal(req.Params.Arguments, &args) != nil || len(args.Page) == 0 || args.Page[0] != '/' {
		return mcptools.ErrorResult(protocol.Error{Code: protocol.CodeInvalidInput, Message: "page must be a path starting with /",
			Issues: []protocol.Issue{{Path: "/page", Message: "must be a path starting with /", Keyword: "pattern"}}}), nil
	}
	g, err := e.site.ReadGraph(caller(ctx, req), args.Page, Transport)
	if err != nil {
		return errorResult(err), nil
	}
	return mcptools.GraphResult(g, e.runner(g.Route)), nil
}

// runner is how a model on this endpoint runs the actions of a page of
// route: by their tools, or through callAction on the lean list.
func (e *endpoint) runner(route string) mdpage.Runner {
	return mcptools.PageRunner(e.names, route, e.opts.Lean)
}

// siteIndex answers siteIndex with the index as this caller sees it.
func (e *endpoint) siteIndex(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	r, err := e.site.NewRequest(caller(ctx, req))
	if err != nil {
		return errorResult(err), nil
	}
	return mcptools.IndexResult(e.site.Index(r)), nil
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
		r, aerr := e.site.NewRequest(caller(ctx, req))
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
			if !isAction || visible[[2]string{t.Route, t.Action.Name}] {
				kept = append(kept, td)
			}
		}
		list.Tools = kept
		return list, nil
	}
}
