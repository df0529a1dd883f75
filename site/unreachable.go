package site

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
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

// unreachableMessage is what the caller reads.
const unreachableMessage = "The site cannot reach its data just now. Try again in a moment, with the same Idempotency-Key."

// Unreachable reports whether err means that the site's data could not be
// reached for a moment rather than that something is wrong: a connection
// refused, reset or cut, a connection database/sql found bad or done, a
// timeout of the network, and a database that says it is shutting down or
// not accepting connections yet (SQLSTATE classes 08 and 57P, as pgx and
// lib/pq report them). It is the default of Options.Unreachable.
func Unreachable(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) {
		return false
	}
	if errors.Is(err, driver.ErrBadConn) || errors.Is(err, sql.ErrConnDone) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) {
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
	var state interface{ SQLState() string }
	if errors.As(err, &state) {
		s := state.SQLState()
		return strings.HasPrefix(s, "08") || strings.HasPrefix(s, "57P")
	}
	return false
}

// failure is the answer to an error the site's code returned where only
// a success or an *Error was expected: 503 unavailable with Retry-After
// when the data could not be reached, else 500 internal. The error is
// logged either way, with what.
func (s *Site) failure(ctx context.Context, what string, err error, attrs ...any) *Error {
	if s.opts.Unreachable(err) {
		s.opts.Logger.WarnContext(ctx, "affordances: "+what+": the data could not be reached; answered 503", append(attrs, "err", err)...)
		e := newError(protocol.CodeUnavailable, unreachableMessage)
		e.status, e.retryAfter = 503, unreachableRetry
		return e
	}
	s.opts.Logger.ErrorContext(ctx, "affordances: "+what, append(attrs, "err", err)...)
	return newInternalError()
}
