package site

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/affordances-go/affordances/internal/route"
	"github.com/affordances-go/affordances/protocol"
)

// Error is a failure that answers with one of the protocol's error codes.
// Every step of the call pipeline stops a call with one, and an action's
// handler returns one to decline on its own terms:
//
//   - [Unavailable]: the action cannot run now (sold out in the meantime,
//     payment declined); 409 unavailable with the message.
//   - [NotFound]: the thing the input names does not exist (no such
//     token); 404 not_found with the message.
//   - [Invalid]: one field of the input is wrong in a way the schema could
//     not say (only 3 left); 400 invalid_input with an issue on the field.
//     Join several with errors.Join to report every field at once.
//   - [RateLimited]: a limit of the action's own (failed sign-ins per
//     account); 429 rate_limited with Retry-After.
//
// Any other error a handler returns, and any panic, answers 500 internal
// with a generic message; the details go to the site's log only.
//
// A handler that returns an Error must not have changed anything.
type Error struct {
	code        protocol.ErrorCode
	message     string
	issues      []protocol.Issue
	status      int    // set only where the code's usual status does not fit
	retryAfter  int    // seconds: rate_limited, or a key whose call still runs
	badToken    bool   // a rejected bearer token, answered with WWW-Authenticate
	approvalURL string // the approval page, for confirm_required of an action with approval
	basis       string // the ApprovalBasis of the summary, for confirm_required
}

// Basis returns, for a confirm_required, the [ApprovalBasis] of the state
// its summary was built from ("" when the input has none). A door that
// asks the person itself (MCP elicitation) keeps it, signed, and gives it
// back with the confirmed call in [Call.Basis], so that the action can
// check it runs on what the person read.
func (e *Error) Basis() string { return e.basis }

// ApprovalURL returns, for a confirm_required of an action with approval,
// the page where the person approves the call.
func (e *Error) ApprovalURL() string { return e.approvalURL }

// Error returns the message, prefixed with the code.
func (e *Error) Error() string { return string(e.code) + ": " + e.message }

// Code returns the protocol error code the call answers with.
func (e *Error) Code() protocol.ErrorCode { return e.code }

// Message returns the sentence shown to the caller.
func (e *Error) Message() string { return e.message }

// Issues returns the input issues of an invalid_input error.
func (e *Error) Issues() []protocol.Issue { return e.issues }

// Status returns the HTTP status of the answer: the code's own status
// ([protocol.ErrorCode.Status]), except for the two cases the product
// decisions set apart: 403 for a cookie call without a matching Origin and
// 413 for a body over the size limit.
func (e *Error) Status() int {
	if e.status != 0 {
		return e.status
	}
	return e.code.Status()
}

// protocolError returns the error object of the delta.
func (e *Error) protocolError() *protocol.Error {
	return &protocol.Error{Code: e.code, Message: e.message, Issues: e.issues}
}

// Delta is the delta a POST of the page answers for the failure: its
// code, message and issues, and what to repeat the call with. A door of
// its own (an inspector, a queue) that runs Execute answers with it.
func (e *Error) Delta() protocol.Delta {
	d := protocol.Delta{Error: e.protocolError(), ApprovalURL: e.approvalURL}
	if e.code == protocol.CodeConfirmRequired {
		d.RepeatWith = &protocol.Repeat{Confirm: true}
		if e.approvalURL != "" {
			d.RepeatWith.Approval = route.LastSegment(e.approvalURL)
		}
	}
	return d
}

// setHeaders sets the headers the failure needs: Retry-After on a
// rate-limited answer and on a key whose call still runs,
// WWW-Authenticate on a rejected bearer token.
func (e *Error) setHeaders(h http.Header) {
	if e.retryAfter > 0 {
		h.Set("Retry-After", strconv.Itoa(e.retryAfter))
	}
	if e.badToken {
		h.Set("WWW-Authenticate", `Bearer error="invalid_token"`)
	}
}

// newBadTokenError is the failure of a bearer token the site rejected.
func newBadTokenError() *Error {
	e := newError(protocol.CodeUnauthorized, "the bearer token was not accepted")
	e.badToken = true
	return e
}

// newError returns a failure with the code's usual status.
func newError(code protocol.ErrorCode, msg string, issues ...protocol.Issue) *Error {
	return &Error{code: code, message: msg, issues: issues}
}

// withStatus overrides the status of the code, where decisions.md says so.
func (e *Error) withStatus(status int) *Error {
	e.status = status
	return e
}

// internalMessage is the one message of every internal failure: generic,
// so that nothing of the server's insides reaches a caller.
const internalMessage = "the server could not complete the request"

// newInternalError returns the failure of anything unexpected. The caller
// logs the details.
func newInternalError() *Error { return newError(protocol.CodeInternal, internalMessage) }

// Unavailable returns the error with which an action declines to run on
// its own terms: the call answers unavailable (409) with the message,
// which is shown to the user.
func Unavailable(format string, args ...any) error {
	return newError(protocol.CodeUnavailable, fmt.Sprintf(format, args...))
}

// NotFound returns the error of an action asked about something that does
// not exist, such as a token id that names no token of the caller: the
// call answers not_found (404) with the message.
func NotFound(format string, args ...any) error {
	return newError(protocol.CodeNotFound, fmt.Sprintf(format, args...))
}

// RateLimited returns the error of an action that limits something of its
// own beyond the site's limit per caller, such as failed sign-ins per
// account: the call answers rate_limited (429) with the message and a
// Retry-After of retryAfter, rounded up to whole seconds (at least 1).
func RateLimited(retryAfter time.Duration, format string, args ...any) error {
	e := newError(protocol.CodeRateLimited, fmt.Sprintf(format, args...))
	e.retryAfter = max(1, int((retryAfter+time.Second-1)/time.Second))
	return e
}

// Invalid returns the error of an input the schema accepted but the action
// cannot: the call answers invalid_input (400) with one issue whose path
// is a JSON Pointer into the input, such as "/qty" (a path without the
// leading slash gets one), and whose keyword is "action", since no schema
// keyword failed. Several Invalid errors joined with errors.Join answer
// one invalid_input listing every issue; an HTML form shows each message
// beside its field.
func Invalid(path, message string) error {
	if path != "" && !strings.HasPrefix(path, "/") {
		path = "/" + path
	}
	return newError(protocol.CodeInvalidInput, "the input was not accepted",
		protocol.Issue{Path: path, Message: message, Keyword: "action"})
}

// handlerError returns the failure a handler's error answers with: its own
// *Error when it returned one a handler may return (joined invalid_input
// errors become one), nil for anything else, which is internal.
func handlerError(err error) *Error {
	var e *Error
	if !errors.As(err, &e) {
		return nil
	}
	switch e.code {
	case protocol.CodeUnavailable, protocol.CodeNotFound, protocol.CodeRateLimited:
		return e
	case protocol.CodeInvalidInput:
		var issues []protocol.Issue
		collectIssues(err, &issues)
		return newError(protocol.CodeInvalidInput, e.message, issues...)
	}
	return nil
}

// collectIssues gathers the issues of every invalid_input *Error in err's
// tree, in order.
func collectIssues(err error, out *[]protocol.Issue) {
	if e, ok := err.(*Error); ok && e.code == protocol.CodeInvalidInput {
		*out = append(*out, e.issues...)
		return
	}
	switch u := err.(type) {
	case interface{ Unwrap() []error }:
		for _, x := range u.Unwrap() {
			collectIssues(x, out)
		}
	case interface{ Unwrap() error }:
		if x := u.Unwrap(); x != nil {
			collectIssues(x, out)
		}
	}
}

// The errors a site's code returns, or is given, to say what the pipeline
// answers with: errors.Is finds them through wrapping.
var (
	// ErrNotFound is returned by a page's loader when the page does not exist
	// for this request, such as a product slug that names no product. Agents
	// get a not_found delta and browsers the site's 404 page.
	ErrNotFound = errors.New("site: page not found")

	// ErrBadToken is returned by an [Authenticator] for a bearer token it
	// rejects: unknown, expired or revoked.
	ErrBadToken = errors.New("site: bearer token rejected")

	// ErrApprovalChanged is returned by [Request.CheckApproved] when the state
	// an action is about to act on is not the state the person approved. An
	// action returns it (or an error wrapping it) after rolling back: the
	// call answers confirm_required with a new summary, and nothing ran.
	ErrApprovalChanged = errors.New("site: the state the person approved has changed")

	// ErrOutsideGrant is returned by an action that runs on a standing
	// approval ([Request.Standing]) when it finds, where it writes, that the
	// call is beyond the grant (the day's limit reached by calls that ran at
	// the same time): nothing was written, and the person is asked on the
	// approval page.
	ErrOutsideGrant = errors.New("site: the call is outside the caller's standing approval")
)

// Forbidden returns the error of a gate that refuses a caller who may not
// do this now, such as a person whose proof did not verify: the call
// answers unauthorized (403) with the message, and nothing runs.
func Forbidden(format string, args ...any) error {
	return newError(protocol.CodeUnauthorized, fmt.Sprintf(format, args...)).withStatus(http.StatusForbidden)
}

// AskPerson returns the error of a gate of StageApproval that sends the
// person to url (an approval page, its path) to decide: the call answers
// confirm_required with message, for the person, and with url as its
// approvalUrl, which every door passes on in its own terms. Nothing ran.
func AskPerson(url, message string) error {
	e := newError(protocol.CodeConfirmRequired, message)
	e.approvalURL = url
	return e
}
