package site

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"io"
	"net"
	"strings"
	"syscall"

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
// refused, reset or cut, a connection database/sql found bad or done, a
// timeout of the network, a message from the database cut in the middle
// (io.ErrUnexpectedEOF: pgx reports so a connection the database closes
// while it opens, during a restart), a connection the driver found closed
// under a query (pgx's pgconn.ErrConnClosed, go-sql-driver/mysql's
// ErrInvalidConn), and a database that says it is
// shutting down or not accepting connections yet (SQLSTATE classes 08 and
// 57P, as pgx and lib/pq report them). It is the default of
// Options.Unreachable.
func Unreachable(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) {
		return false
	}
	if errors.Is(err, driver.ErrBadConn) || errors.Is(err, sql.ErrConnDone) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) ||
		errors.Is(err, io.ErrUnexpectedEOF) {
		return true
	}
	if closedConn(err) {
		return true
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return true
	}
	var op *net.OpError
	if errors.As(err, &op) {
		return true
	}
	// pgx marks an error of a connection it could not use, before the
	// query reached the server, as safe to retry: the database was not
	// there to take it (a connection that closed under a restart).
	var retry interface{ SafeToRetry() bool }
	if errors.As(err, &retry) && retry.SafeToRetry() {
		return true
	}
	var state interface{ SQLState() string }
	if errors.As(err, &state) {
		s := state.SQLState()
		return strings.HasPrefix(s, "08") || strings.HasPrefix(s, "57P")
	}
	return false
}

// closedConnText are the texts of the drivers' sentinels for a connection
// the database closed under a query (a restart): pgx's
// pgconn.ErrConnClosed and go-sql-driver/mysql's ErrInvalidConn (which
// MariaDB's and MySQL's connections answer once the server cut them).
var closedConnText = map[string]bool{"conn closed": true, "invalid connection": true}

// closedConn reports whether err wraps a driver's sentinel for a
// connection the database closed under a query (closedConnText). The
// driver does not mark it safe to retry since the query may have been
// sent; nor is a reset connection, and both are a lost database. The core
// imports no driver, so the sentinel is known by its text, and only as a
// plain error: one that wraps nothing and has no SafeToRetry of its own (a
// driver's own error type speaks for itself through SafeToRetry).
func closedConn(err error) bool {
	switch x := err.(type) {
	case nil:
		return false
	case interface{ Unwrap() error }:
		return closedConn(x.Unwrap())
	case interface{ Unwrap() []error }:
		for _, e := range x.Unwrap() {
			if closedConn(e) {
				return true
			}
		}
		return false
	}
	_, speaks := err.(interface{ SafeToRetry() bool })
	return !speaks && closedConnText[err.Error()]
}

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
