package mcp

import (
	"context"
	"errors"
	"net/http"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/affordances-go/affordances/internal/mcptools"
	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site"
	"github.com/affordances-go/affordances/site/approval"
)

// callTool returns the handler of an action's tool: the shared
// confirmation flow (mcptools.Confirmation) over the site's pipeline.
func (e *endpoint) callTool(t *mcptools.Tool) sdk.ToolHandler {
	return func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		d := &siteDoor{e: e, hr: caller(ctx, req), session: req.Session}
		return e.confirm.Handle(ctx, d, t, req), nil
	}
}

// callAction is the lean list's tool: it finds the per-action tool the
// arguments name and runs it with them, as that tool's own call.
func (e *endpoint) callAction(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	t, args, direct, bad := mcptools.Lean(e.list, req.Params.Arguments)
	if bad != nil {
		return mcptools.ErrorResult(*bad), nil
	}
	d := &siteDoor{e: e, hr: caller(ctx, req), session: req.Session}
	if t == nil {
		// No agent's tool runs it: the pipeline says why.
		r := d.Call(ctx, *direct)
		if r.Delta.Error != nil {
			return mcptools.ErrorResult(*r.Delta.Error), nil
		}
		return mcptools.DeltaResult(r.Delta, e.runner("")), nil
	}
	params := *req.Params
	params.Arguments = args
	as := *req
	as.Params = &params
	return e.confirm.Handle(ctx, d, t, &as), nil
}

// siteDoor runs the calls of one tool call through the site's pipeline,
// for the caller of the MCP request.
type siteDoor struct {
	e       *endpoint
	hr      *http.Request
	session *sdk.ServerSession
}

// req is the caller's request with ctx.
func (d *siteDoor) req(ctx context.Context) *http.Request {
	return site.WithoutCookies(d.hr.WithContext(ctx))
}

// Call implements mcptools.Door.
func (d *siteDoor) Call(ctx context.Context, c mcptools.DoorCall) mcptools.DoorResult {
	res, err := d.e.site.Execute(d.req(ctx), site.Call{Page: c.Page, Transport: Transport,
		Call:  protocol.Call{Action: c.Action, Input: c.Input, Confirm: c.Confirm, Approval: c.Approval},
		Basis: c.Basis, IdempotencyKey: c.IdempotencyKey})
	if err == nil {
		return mcptools.DoorResult{Delta: res.Delta, Replayed: res.Replayed}
	}
	var se *site.Error
	if !errors.As(err, &se) {
		return mcptools.DoorResult{Delta: protocol.Delta{Error: &protocol.Error{Code: protocol.CodeInternal, Message: "the server could not complete the request"}}}
	}
	dl := protocol.Delta{Error: &protocol.Error{Code: se.Code(), Message: se.Message(), Issues: se.Issues()}}
	if u := se.ApprovalURL(); u != "" {
		dl.ApprovalURL = absoluteURL(d.hr, u)
	}
	return mcptools.DoorResult{Delta: dl, Basis: se.Basis()}
}

// ApprovalStatus implements mcptools.Door.
func (d *siteDoor) ApprovalStatus(ctx context.Context, approvalURL string) (string, error) {
	return approval.Status(d.e.site, d.req(ctx), approvalURL)
}

// CallerID implements mcptools.Door.
func (d *siteDoor) CallerID(ctx context.Context) (string, error) {
	r, err := d.e.site.NewRequest(d.req(ctx))
	if err != nil {
		var se *site.Error
		if errors.As(err, &se) {
			return "", errors.New(se.Message())
		}
		return "", errors.New("the caller could not be identified")
	}
	return string(r.Caller.Mode) + ":" + r.Caller.ID, nil
}

// Notify implements mcptools.Door.
func (d *siteDoor) Notify(ctx context.Context, elicitationID string) {
	if d.session != nil {
		d.session.NotifyElicitationComplete(ctx, &sdk.ElicitationCompleteParams{ElicitationID: elicitationID})
	}
}

// absoluteURL makes a site path absolute, on the host the MCP request came
// to.
func absoluteURL(hr *http.Request, path string) string {
	if strings.HasPrefix(path, "http://") || strings.HasPrefix(path, "https://") {
		return path
	}
	scheme := "http"
	if hr.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + hr.Host + path
}

// errorResult is the error result of a failure of the site: its code,
// message and issues; anything else is internal.
func errorResult(err error) *sdk.CallToolResult {
	pe := protocol.Error{Code: protocol.CodeInternal, Message: "the server could not complete the request"}
	var se *site.Error
	if errors.As(err, &se) {
		pe = protocol.Error{Code: se.Code(), Message: se.Message(), Issues: se.Issues()}
	}
	return mcptools.ErrorResult(pe)
}
