package site

import (
	"context"
	"errors"

	"github.com/affordances-go/affordances/internal/reach"
	"github.com/affordances-go/affordances/protocol"
)

// A database that goes away for a moment (a restart, a failover, a
// connection cut) is a retry, not a failure: an error the site's
// Unreachable test recognises answers 503 unavailable with Retry-After,
// which agents retry with the call's Idempotency-Key, where any other
// error answers 500 internal. The site's code does nothing: its loaders
// and actions return the driver's error as they do.

// unreachableRetry is the Retry-After of an unreachable store, seconds.
const unreachableRetry = 1

// statusClientClosed is the status recorded for a call whose caller hung
// up before its answer (nginx's 499): never read, but it keeps a client's
// cancellation out of the 5xx of logs and metrics.
const statusClientClosed = 499

// unreachableMessage is what the caller reads.
const unreachableMessage = "The site cannot reach its data just now. Try again in a moment, with the same Idempotency-Key."

// Unreachable reports whether err means that the site's data could not be
// reached for a moment rather than that something is wrong: a connection
// refused, reset or cut, or found bad or closed by the driver, a timeout
// of the network, a message from the database cut in the middle, and a
// database that says it is shutting down or not accepting connections
// yet (SQLSTATE classes 08 and 57P). It imports no driver: an application
// whose driver reports a restart in a type of its own (MySQL's error
// numbers) wraps it, as the recipes example does. It is the default of
// Options.Unreachable.
func Unreachable(err error) bool { return reach.Lost(err) }

// failure is the answer to an error the site's code returned where only
// a success or an *Error was expected: 503 unavailable with Retry-After
// when the data could not be reached, 499 when the caller hung up and the
// code stopped with it, else 500 internal. The error is logged each way,
// with what: an internal error at ERROR, the others below it.
func (s *Site) failure(ctx context.Context, what string, err error, attrs ...any) *Error {
	switch s.logFailure(ctx, what, err, attrs...) {
	case failedCancelled:
		e := newError(protocol.CodeUnavailable, "The call was cancelled by its caller before it finished.")
		e.status = statusClientClosed
		return e
	case failedUnreachable:
		e := newError(protocol.CodeUnavailable, unreachableMessage)
		e.status, e.retryAfter = 503, unreachableRetry
		return e
	}
	return newInternalError()
}

// failureKind is what an error of the site's code means to the caller.
type failureKind int

const (
	failedInternal    failureKind = iota // a bug, or a failure nobody foresaw: ERROR
	failedUnreachable                    // the data was away for a moment: WARN
	failedCancelled                      // the caller hung up and the code gave up with it: INFO
)

// logFailure logs an error of the site's code at the level its kind
// deserves, and returns the kind. A caller that hung up is recognised
// only while the request's context is done: the code cancelling
// something of its own, with the caller still there, is a bug.
func (s *Site) logFailure(ctx context.Context, what string, err error, attrs ...any) failureKind {
	attrs = append(attrs, "err", err)
	switch {
	case ctx.Err() != nil && errors.Is(err, context.Canceled):
		s.opts.Logger.InfoContext(ctx, "affordances: "+what+": the caller went away", attrs...)
		return failedCancelled
	case s.opts.Unreachable(err):
		s.opts.Logger.WarnContext(ctx, "affordances: "+what+": the data could not be reached", attrs...)
		return failedUnreachable
	}
	s.opts.Logger.ErrorContext(ctx, "affordances: "+what, attrs...)
	return failedInternal
}
