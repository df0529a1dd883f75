package mcp

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/affordances-go/affordances/internal/mcptools"
	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site"
)

// confirmKey names the elicitation of a confirm action in the input
// requests of a result and the input responses of the retried call.
const confirmKey = "confirm"

// callTool returns the handler of an action's tool: split the page from
// the arguments, run the call through the site's pipeline, and ask the
// person before a confirm action runs.
func (e *endpoint) callTool(t *mcptools.Tool) sdk.ToolHandler {
	return func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		hr := callerRequest(req).WithContext(ctx)
		page, input, approval, bad := t.Arguments(req.Params.Arguments)
		if bad != nil {
			return mcptools.ErrorResult(*bad), nil
		}
		call := site.Call{Page: page, Action: t.Action.Name, Input: input, Transport: "mcp"}
		if t.Action.Expose != protocol.ExposeConfirm {
			return e.execute(hr, call), nil
		}
		if approval != "" {
			// The person approved on the site, the model says: the site
			// checks that they did, for exactly this call.
			call.Confirm, call.Approval = true, approval
			return e.executeApproval(hr, call), nil
		}

		// A confirm action: the call resumes with the person's answer and
		// the state the first round handed out, or it starts.
		r, err := e.site.NewRequest(hr)
		if err != nil {
			return errorResult(err), nil
		}
		want := mcptools.ConfirmState{Caller: string(r.Caller.Mode) + ":" + r.Caller.ID, Action: t.Action.Name, Page: page, Input: mcptools.Digest(input)}
		if req.Params.RequestState != "" || req.Params.InputResponses != nil {
			st, err := mcptools.Verify(e.opts.Secret, e.used, req.Params.RequestState, want, time.Now())
			if err != nil {
				return notConfirmed(err.Error() + "; nothing ran"), nil
			}
			answer, _ := req.Params.InputResponses[confirmKey].(*sdk.ElicitResult)
			if answer == nil || answer.Action != "accept" {
				return notConfirmed("the person did not approve; nothing ran"), nil
			}
			call.Confirm, call.Approval = true, st.Approval
			if st.Approval != "" {
				return e.executeApproval(hr, call), nil
			}
			return e.execute(hr, call), nil
		}
		res, err := e.site.Execute(hr, call)
		var se *site.Error
		if !errors.As(err, &se) || se.Code() != protocol.CodeConfirmRequired {
			return result(res, err), nil
		}
		caps := req.ClientCapabilities()
		want.Expiry = time.Now().Add(e.opts.ConfirmTTL).Unix()
		want.Nonce = mcptools.NewNonce()
		if u := se.ApprovalURL(); u != "" {
			// The person approves on the site: a host that can open a URL
			// for them does; any other gets the page in the error result.
			abs := absoluteURL(hr, u)
			if caps == nil || caps.Elicitation == nil || caps.Elicitation.URL == nil {
				return mcptools.ErrorResult(protocol.Error{Code: protocol.CodeConfirmRequired, Message: se.Message() +
					" Approval page: " + abs + " (call again with approval set to it once the person approved)"}), nil
			}
			want.Approval = u
			return &sdk.CallToolResult{
				InputRequests: sdk.InputRequestMap{confirmKey: &sdk.ElicitParams{Mode: "url", URL: abs,
					ElicitationID: want.Nonce, Message: se.Message()}},
				RequestState: mcptools.Sign(e.opts.Secret, want),
			}, nil
		}
		if caps == nil || caps.Elicitation == nil {
			// No way to ask the person: the host shows the summary, and
			// nothing runs.
			return errorResult(err), nil
		}
		return &sdk.CallToolResult{
			InputRequests: sdk.InputRequestMap{confirmKey: &sdk.ElicitParams{
				Message:         se.Message() + "\n\nApprove? Nothing happens unless you accept.",
				RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{}},
			}},
			RequestState: mcptools.Sign(e.opts.Secret, want),
		}, nil
	}
}

// executeApproval runs a call that brings the person's site approval; a
// refusal carries the page of the approval to ask for next, as a URL.
func (e *endpoint) executeApproval(hr *http.Request, call site.Call) *sdk.CallToolResult {
	res, err := e.site.Execute(hr, call)
	var se *site.Error
	if errors.As(err, &se) && se.ApprovalURL() != "" {
		return mcptools.ErrorResult(protocol.Error{Code: protocol.CodeConfirmRequired,
			Message: se.Message() + " Approval page: " + absoluteURL(hr, se.ApprovalURL())})
	}
	return result(res, err)
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

// execute runs a call and makes its result.
func (e *endpoint) execute(hr *http.Request, call site.Call) *sdk.CallToolResult {
	res, err := e.site.Execute(hr, call)
	return result(res, err)
}

// notConfirmed is the result of a confirm action that did not run.
func notConfirmed(msg string) *sdk.CallToolResult {
	return mcptools.ErrorResult(protocol.Error{Code: protocol.CodeConfirmRequired, Message: msg})
}

// result turns a call's answer into a tool result.
func result(res site.CallResult, err error) *sdk.CallToolResult {
	if err != nil {
		return errorResult(err)
	}
	return mcptools.DeltaResult(res.Delta)
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
