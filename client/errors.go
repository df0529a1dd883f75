package client

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/affordances-go/affordances/protocol"
)

// Error is a failure the server reported in a delta: the protocol's code,
// its message and, for invalid_input, every issue.
type Error struct {
	// Status is the HTTP status of the answer.
	Status int
	// Code is the protocol's error code.
	Code protocol.ErrorCode
	// Message is the server's explanation, for a person.
	Message string
	// Issues lists the problems of an invalid input.
	Issues []protocol.Issue
	// RetryAfter is how long to wait before trying again, for
	// rate_limited.
	RetryAfter time.Duration
	// ApprovalURL is, for confirm_required of an action that needs the
	// person's approval on the site, the absolute URL of the approval page.
	ApprovalURL string
}

func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%d): %s", e.Code, e.Status, e.Message)
	for _, is := range e.Issues {
		p := is.Path
		if p == "" {
			p = "(input)"
		}
		fmt.Fprintf(&b, "\n  %s: %s [%s]", p, is.Message, is.Keyword)
	}
	return b.String()
}

// IsCode reports whether err is an *Error with the given code.
func IsCode(err error, code protocol.ErrorCode) bool {
	var e *Error
	return errors.As(err, &e) && e.Code == code
}

// ErrNotDocument is wrapped by the errors of answers that are not the
// Affordances document asked for: another media type, or JSON that does
// not read as one. The URL is likely not a page of an Affordances site.
var ErrNotDocument = errors.New("not an Affordances document")

// ErrNotApproved is returned when the Approver declined a confirm action.
// Nothing ran.
var ErrNotApproved = errors.New("affordances: the action was not approved")

// VersionError is returned for a document of a protocol major this
// package does not support.
type VersionError struct {
	URL string
	Err error
}

func (e *VersionError) Error() string { return e.URL + ": " + e.Err.Error() }
func (e *VersionError) Unwrap() error { return e.Err }
