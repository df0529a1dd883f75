package protocol

import "net/http"

// ErrorCode names why a call or a request failed. It travels in the error
// object of a [Delta] whose ok is false.
type ErrorCode string

const (
	// CodeNotFound: the page has no graph, the route has no such action, or
	// the action is hidden from this caller. The three look the same on
	// purpose, so a caller cannot learn that a hidden action exists.
	CodeNotFound ErrorCode = "not_found"
	// CodeUnauthorized: the caller lacks the session the action needs, its
	// bearer token was rejected (401), or a cookie call came without a
	// matching Origin (403).
	CodeUnauthorized ErrorCode = "unauthorized"
	// CodeRateLimited: the caller is over its limit for this action; the
	// response carries Retry-After in seconds.
	CodeRateLimited ErrorCode = "rate_limited"
	// CodeInvalidInput: the body could not be read as a call, or the input
	// fails the action's schema; the error lists every issue found.
	CodeInvalidInput ErrorCode = "invalid_input"
	// CodeUnavailable: the action's guard is false right now, or the action
	// itself declined; the message says why.
	CodeUnavailable ErrorCode = "unavailable"
	// CodeConfirmRequired: a confirm action was called without confirm: true.
	// Nothing ran; the message summarises what would happen, for the person
	// who is asked to approve it.
	CodeConfirmRequired ErrorCode = "confirm_required"
	// CodeInternal: the server failed unexpectedly. The message is generic;
	// details stay in the server's logs.
	CodeInternal ErrorCode = "internal"
)

// ErrorCodes lists every error code of the protocol.
func ErrorCodes() []ErrorCode {
	return []ErrorCode{CodeNotFound, CodeUnauthorized, CodeRateLimited, CodeInvalidInput,
		CodeUnavailable, CodeConfirmRequired, CodeInternal}
}

// Status is the HTTP status a server answers with for the code. Two cases
// have a second status that the code alone cannot tell: unauthorized is 403
// when a cookie call fails the Origin rule, and invalid_input is 413 when the
// body is over the size limit. Status returns the usual one (401 and 400).
// An unknown code maps to 500.
func (c ErrorCode) Status() int {
	switch c {
	case CodeNotFound:
		return http.StatusNotFound
	case CodeUnauthorized:
		return http.StatusUnauthorized
	case CodeRateLimited:
		return http.StatusTooManyRequests
	case CodeInvalidInput:
		return http.StatusBadRequest
	case CodeUnavailable:
		return http.StatusConflict
	case CodeConfirmRequired:
		return http.StatusPreconditionRequired
	}
	return http.StatusInternalServerError
}

// Valid reports whether c is one of the protocol's error codes.
func (c ErrorCode) Valid() bool {
	for _, k := range ErrorCodes() {
		if c == k {
			return true
		}
	}
	return false
}
