package mcptools

import (
	"context"
	"errors"
	"fmt"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/affordances-go/affordances/internal/mdpage"
	"github.com/affordances-go/affordances/protocol"
)

// Door is what a confirmation needs of the MCP door it runs in: the site's
// own endpoint runs calls through the site's pipeline, the afford mcp
// bridge through the client library over HTTP. The flow that asks the
// person, binds the answer to the call, and waits for a decision made on
// the site is written once, in [Confirmation.Handle], for both.
type Door interface {
	// Call runs one call as given and returns its delta: the successful
	// one, or the failed one with its error (and, for a confirm_required
	// of an action with approval, its approval page in ApprovalURL, as an
	// absolute URL). basis is, for a confirm_required, the basis of the
	// summary (empty where the door cannot know it).
	Call(ctx context.Context, c DoorCall) DoorResult
	// ApprovalStatus returns where an approval stands: pending, approved,
	// declined, used or expired.
	ApprovalStatus(ctx context.Context, approvalURL string) (string, error)
	// CallerID identifies the caller, to bind a confirmation to it.
	CallerID(ctx context.Context) (string, error)
	// Notify tells the client that the URL-mode elicitation id completed,
	// where the door has a session to tell it on.
	Notify(ctx context.Context, elicitationID string)
}

// DoorResult is what a Door's call answered.
type DoorResult struct {
	Delta protocol.Delta
	// Basis is, for a confirm_required, the basis of the summary ("" where
	// the door cannot know it).
	Basis string
	// Replayed: the delta is the stored outcome of an earlier call with
	// the same idempotency key; nothing ran now.
	Replayed bool
}

// IdempotencyMeta is the _meta key of a tool call that carries its
// idempotency key (the Idempotency-Key of a POST): a host that sends the
// same tool call again with the same key gets the first call's result,
// marked with _meta[ReplayedMeta] = true, and nothing runs twice.
const (
	IdempotencyMeta = "affordances/idempotencyKey"
	ReplayedMeta    = "affordances/replayed"
)

// DoorCall is one call a Door runs.
type DoorCall struct {
	// IdempotencyKey is the tool call's key, "" for none.
	IdempotencyKey string
	Page           string
	Action         string
	Input          []byte
	Confirm        bool
	// Approval is the approval page (URL, path or id) the person gave.
	Approval string
	// Basis is the basis of the summary the person confirmed.
	Basis string
}

// Confirmation runs the tools of a site's actions for one door.
type Confirmation struct {
	Secret []byte
	Used   *Nonces
	// TTL is how long a person has to answer. Default: 5 minutes.
	TTL time.Duration
	// Wait bounds how long a call waits, after the person opened the
	// approval page (URL-mode accept), for their decision on the site.
	// Default: 2 minutes.
	Wait time.Duration
	// Poll is how often the approval is read while waiting. Default: 1 s.
	Poll time.Duration
	// Runner is how the model runs the actions of a page of a route
	// (PageRunner), for the actions a call's text says changed. Default:
	// each by the tool of its name.
	Runner func(route string) mdpage.Runner
}

// confirmKey names the confirmation among a result's input requests.
const confirmKey = "confirm"

// metaKey reads a tool call's idempotency key from its _meta. Absent is
// none; anything there that is not a valid key (empty, a number, null) is
// refused, never read as none: the host meant to protect the call.
func metaKey(meta sdk.Meta) (string, *protocol.Error) {
	v, ok := meta[IdempotencyMeta]
	if !ok {
		return "", nil
	}
	if k, _ := v.(string); protocol.ValidIdempotencyKey(k) {
		return k, nil
	}
	return "", &protocol.Error{Code: protocol.CodeInvalidInput,
		Message: "_meta \"" + IdempotencyMeta + "\" must be a string of 1 to 255 visible ASCII characters"}
}

// Handle runs a tool call of the action t describes. A confirm action runs
// only once the person approved exactly this call: through the host's
// form elicitation (accept with the summary in front of them), or on the
// site's approval page for an action with approval (a URL elicitation
// whose accept only means the page was opened: the call then waits, a
// bounded time, for the decision made there). A host that cannot ask the
// way the action needs gets an error result with the summary and, for an
// action with approval, the approval page in approvalUrl. No argument of
// the model confirms anything by itself.
func (cf *Confirmation) Handle(ctx context.Context, door Door, t *Tool, req *sdk.CallToolRequest) *sdk.CallToolResult {
	page, input, approval, bad := t.Arguments(req.Params.Arguments)
	if bad != nil {
		return ErrorResult(*bad)
	}
	key, bad := metaKey(req.Params.Meta)
	if bad != nil {
		return ErrorResult(*bad)
	}
	call := DoorCall{Page: page, Action: t.Action.Name, Input: input, IdempotencyKey: key}
	if t.Action.Expose != protocol.ExposeConfirm {
		return cf.result(t, door.Call(ctx, call))
	}
	if approval != "" {
		// The person approved on the site, the model says: the site checks
		// that they did, for exactly this call.
		call.Confirm, call.Approval = true, approval
		return cf.result(t, door.Call(ctx, call))
	}
	caller, err := door.CallerID(ctx)
	if err != nil {
		return ErrorResult(protocol.Error{Code: protocol.CodeUnauthorized, Message: err.Error()})
	}
	want := ConfirmState{Caller: caller, Action: t.Action.Name, Page: page, Input: Digest(input)}
	if req.Params.RequestState != "" || req.Params.InputResponses != nil {
		return cf.resume(ctx, door, t, req, call, want)
	}
	first := door.Call(ctx, call)
	d, basis := first.Delta, first.Basis
	if d.OK || d.Error == nil || d.Error.Code != protocol.CodeConfirmRequired {
		return cf.result(t, first)
	}
	caps := req.ClientCapabilities()
	want.Expiry = time.Now().Add(cf.ttl()).Unix()
	want.Nonce = NewNonce()
	if d.ApprovalURL != "" {
		if !SupportsURL(caps) {
			return cf.result(t, first)
		}
		want.Approval = d.ApprovalURL
		return &sdk.CallToolResult{
			InputRequests: sdk.InputRequestMap{confirmKey: &sdk.ElicitParams{Mode: "url", URL: d.ApprovalURL,
				ElicitationID: want.Nonce, Message: d.Error.Message}},
			RequestState: Sign(cf.Secret, want),
		}
	}
	if !SupportsForm(caps) {
		return ErrorResult(protocol.Error{Code: protocol.CodeConfirmRequired,
			Message: d.Error.Message + "\n\n(This host cannot ask the person for approval, so nothing ran.)"})
	}
	want.Basis = basis
	return &sdk.CallToolResult{
		InputRequests: sdk.InputRequestMap{confirmKey: &sdk.ElicitParams{
			Message:         d.Error.Message + "\n\nApprove? Nothing happens unless you accept.",
			RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{}},
		}},
		RequestState: Sign(cf.Secret, want),
	}
}

// resume completes a confirmation with the person's answer and the state
// the first round handed out.
func (cf *Confirmation) resume(ctx context.Context, door Door, t *Tool, req *sdk.CallToolRequest, call DoorCall, want ConfirmState) *sdk.CallToolResult {
	st, err := Verify(cf.Secret, cf.Used, req.Params.RequestState, want, time.Now())
	if err != nil {
		return notConfirmed(err.Error() + "; nothing ran")
	}
	answer, _ := req.Params.InputResponses[confirmKey].(*sdk.ElicitResult)
	if answer == nil || answer.Action != "accept" {
		if st.Approval != "" {
			door.Notify(ctx, st.Nonce)
		}
		return notConfirmed("The person did not approve; nothing ran.")
	}
	call.Confirm = true
	if st.Approval == "" {
		call.Basis = st.Basis
		return cf.result(t, door.Call(ctx, call))
	}
	// URL mode: accept means the person opened the page. Wait for what
	// they decide there.
	state := cf.await(ctx, door, st.Approval)
	if state != "pending" {
		door.Notify(ctx, st.Nonce)
	}
	switch state {
	case "approved":
		call.Approval = st.Approval
		return cf.result(t, door.Call(ctx, call))
	case "declined":
		return notConfirmed("The person declined on the approval page; nothing ran.")
	case "pending":
		return cf.result(t, DoorResult{Delta: protocol.Delta{ApprovalURL: st.Approval, Error: &protocol.Error{Code: protocol.CodeConfirmRequired,
			Message: "The person has not decided yet; nothing ran."}}})
	default:
		return notConfirmed(fmt.Sprintf("The approval is %s; nothing ran. Call the tool again to ask the person anew.", state))
	}
}

// await polls an approval until it is no longer pending, the wait is over,
// or ctx ends; it returns the last state read.
func (cf *Confirmation) await(ctx context.Context, door Door, approvalURL string) string {
	wait, poll := cf.Wait, cf.Poll
	if wait <= 0 {
		wait = 2 * time.Minute
	}
	if poll <= 0 {
		poll = time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	tick := time.NewTicker(poll)
	defer tick.Stop()
	for {
		state, err := door.ApprovalStatus(ctx, approvalURL)
		switch {
		case err != nil && errors.Is(ctx.Err(), context.DeadlineExceeded):
			return "pending"
		case err != nil:
			return "gone"
		case state != "pending":
			return state
		}
		select {
		case <-ctx.Done():
			return "pending"
		case <-tick.C:
		}
	}
}

func (cf *Confirmation) ttl() time.Duration {
	if cf.TTL <= 0 {
		return 5 * time.Minute
	}
	return cf.TTL
}

// result is the tool result of a delta: the delta as structured content,
// or, for a failure, the failed delta with its approval page and what the
// model can do next over MCP.
func (cf *Confirmation) result(t *Tool, r DoorResult) *sdk.CallToolResult {
	d := r.Delta
	if d.OK || d.Error == nil {
		var run mdpage.Runner
		if cf.Runner != nil {
			run = cf.Runner(t.Route)
		}
		res := DeltaResult(d, run)
		if r.Replayed {
			res.Meta = sdk.Meta{ReplayedMeta: true}
		}
		return res
	}
	res := ErrorResult(*d.Error)
	if d.ApprovalURL != "" {
		res.StructuredContent = protocol.Delta{Error: d.Error, ApprovalURL: d.ApprovalURL}
		res.Content = []sdk.Content{&sdk.TextContent{Text: string(d.Error.Code) + ": " + d.Error.Message +
			"\n\nThe person approves this on the site: ask them to open " + d.ApprovalURL +
			" and approve it there, signed in. Then call " + t.Def.Name + " again with the same arguments and " +
			ApprovalArg + " set to that URL. Nothing has run."}}
	}
	return res
}

// notConfirmed is the result of a confirm action that did not run.
func notConfirmed(msg string) *sdk.CallToolResult {
	return ErrorResult(protocol.Error{Code: protocol.CodeConfirmRequired, Message: msg})
}

// SupportsForm reports whether a client declared form-mode elicitation:
// "form", or an empty elicitation capability (which, before modes
// existed, meant form).
func SupportsForm(caps *sdk.ClientCapabilities) bool {
	if caps == nil || caps.Elicitation == nil {
		return false
	}
	e := caps.Elicitation
	return e.Form != nil || (e.Form == nil && e.URL == nil)
}

// SupportsURL reports whether a client declared URL-mode elicitation.
func SupportsURL(caps *sdk.ClientCapabilities) bool {
	return caps != nil && caps.Elicitation != nil && caps.Elicitation.URL != nil
}
