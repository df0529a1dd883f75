package mcp

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site"
)

// confirmKey names the elicitation of a confirm action in the input
// requests of a result and the input responses of the retried call.
const confirmKey = "confirm"

// callTool returns the handler of an action's tool: split the page from
// the arguments, run the call through the site's pipeline, and ask the
// person before a confirm action runs.
func (e *endpoint) callTool(t *tool) sdk.ToolHandler {
	return func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		hr := callerRequest(req).WithContext(ctx)
		page, input, bad := t.arguments(req.Params.Arguments)
		if bad != nil {
			return errorResult(bad), nil
		}
		call := site.Call{Page: page, Action: t.action.Name, Input: input, Transport: "mcp"}
		if t.action.Expose != protocol.ExposeConfirm {
			return e.execute(hr, call), nil
		}

		// A confirm action: the call resumes with the person's answer and
		// the state the first round handed out, or it starts.
		r, err := e.site.NewRequest(hr)
		if err != nil {
			return errorResult(err), nil
		}
		want := confirmState{Caller: string(r.Caller.Mode) + ":" + r.Caller.ID, Action: t.action.Name, Page: page, Input: digest(input)}
		if req.Params.RequestState != "" || req.Params.InputResponses != nil {
			if err := verify(e.opts.Secret, e.used, req.Params.RequestState, want, time.Now()); err != nil {
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
		want.Nonce = newNonce()
		return &sdk.CallToolResult{
			InputRequests: sdk.InputRequestMap{confirmKey: &sdk.ElicitParams{
				Message:         se.Message() + "\n\nApprove? Nothing happens unless you accept.",
				RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{}},
			}},
			RequestState: sign(e.opts.Secret, want),
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
	return protocolErrorResult(protocol.Error{Code: protocol.CodeConfirmRequired, Message: msg})
}

// arguments splits a tool's arguments into the page and the action's
// input. A page argument that is missing, not a string or not a page of
// the route is invalid input on that argument.
func (t *tool) arguments(raw json.RawMessage) (page string, input json.RawMessage, err error) {
	if len(raw) == 0 || string(raw) == "null" {
		raw = json.RawMessage(`{}`)
	}
	if t.pageArg == "" {
		return t.route, raw, nil
	}
	var args map[string]json.RawMessage
	if json.Unmarshal(raw, &args) != nil {
		return "", nil, site.Invalid("", "the arguments must be an object")
	}
	v, ok := args[t.pageArg]
	if !ok {
		return "", nil, site.Invalid("/"+t.pageArg, "is required: the path of a page of "+t.route)
	}
	if json.Unmarshal(v, &page) != nil || !t.pageRe.MatchString(page) {
		return "", nil, site.Invalid("/"+t.pageArg, "must be the path of a page of "+t.route)
	}
	delete(args, t.pageArg)
	input, _ = json.Marshal(args)
	return page, input, nil
}

// digest is the fingerprint of an input an approval is bound to.
func digest(input json.RawMessage) string {
	h := sha256.Sum256(input)
	return hex.EncodeToString(h[:])
}

// result turns a call's answer into a tool result: the delta as structured
// content with its message as text, or an error result.
func result(res site.CallResult, err error) *sdk.CallToolResult {
	if err != nil {
		return errorResult(err)
	}
	text := res.Delta.Message
	if text == "" {
		text = "Done."
	}
	return &sdk.CallToolResult{StructuredContent: res.Delta, Content: []sdk.Content{&sdk.TextContent{Text: text}}}
}

// errorResult is a tool result with isError: true whose structured content
// is the protocol's error (code, message, issues), so that a model can
// correct its call.
func errorResult(err error) *sdk.CallToolResult {
	pe := protocol.Error{Code: protocol.CodeInternal, Message: "the server could not complete the request"}
	var se *site.Error
	if errors.As(err, &se) {
		pe = protocol.Error{Code: se.Code(), Message: se.Message(), Issues: se.Issues()}
	}
	return protocolErrorResult(pe)
}

func protocolErrorResult(pe protocol.Error) *sdk.CallToolResult {
	var text strings.Builder
	text.WriteString(string(pe.Code) + ": " + pe.Message)
	for _, is := range pe.Issues {
		text.WriteString("\n" + is.Path + ": " + is.Message)
	}
	return &sdk.CallToolResult{IsError: true, StructuredContent: pe, Content: []sdk.Content{&sdk.TextContent{Text: text.String()}}}
}
