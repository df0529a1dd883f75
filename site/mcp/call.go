package mcp

import (
	"context"
	"errors"
	"net/http"
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
		page, input, bad := t.Arguments(req.Params.Arguments)
		if bad != nil {
			return mcptools.ErrorResult(*bad), nil
		}
		call := site.Call{Page: page, Action: t.Action.Name, Input: input, Transport: "mcp"}
		if t.Action.Expose != protocol.ExposeConfirm {
			return e.execute(hr, call), nil
		}

		// A confirm action: the call resumes with the person's answer and
		// the state the first round handed out, or it starts.
		r, err := e.site.NewRequest(hr)
		if err != nil {
			return errorResult(err), nil
		}
		want := mcptools.ConfirmState{Caller: string(r.Caller.Mode) + ":" + r.Caller.ID, Action: t.Action.Name, Page: page, Input: mcptools.Digest(input)}
		if req.Params.RequestState != "" || req.Params.InputResponses != nil {
			if err := mcptools.Verify(e.opts.Secret, e.used, req.Params.RequestState, want, time.Now()); err != nil {
				return notConfirmed(err.Error() + "; nothing ran"), nil
			}
			answer, _ := req.Params.InputResponses[confirmKey].(*sdk.ElicitResult)
			if answer == nil || answer.Action != "accept" {
				return notConfirmed("the person did not approve; nothing ran"), nil
			}
			call.Confirm = true
			return e.execute(hr, call), nil
		}
		res, err := e.site.Execute(hr, call)
		var se *site.Error
		if !errors.As(err, &se) || se.Code() != protocol.CodeConfirmRequired {
			return result(res, err), nil
		}
		caps := req.ClientCapabilities()
		if caps == nil || caps.Elicitation == nil {
			// No way to ask the person: the host shows the summary, and
			// nothing runs.
			return errorResult(err), nil
		}
		want.Expiry = time.Now().Add(e.opts.ConfirmTTL).Unix()
		want.Nonce = mcptools.NewNonce()
		return &sdk.CallToolResult{
			InputRequests: sdk.InputRequestMap{confirmKey: &sdk.ElicitParams{
				Message:         se.Message() + "\n\nApprove? Nothing happens unless you accept.",
				RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{}},
			}},
			RequestState: mcptools.Sign(e.opts.Secret, want),
		}, nil
	}
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
