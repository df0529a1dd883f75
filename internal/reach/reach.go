// Package reach tells a database that went away for a moment (a restart,
// a failover, a connection cut) from an error that means something is
// wrong. Package site answers the first 503 with Retry-After, which
// agents retry with the call's Idempotency-Key, and the second 500. It
// imports no driver: drivers' errors are known by the interfaces and
// sentinels they share with database/sql and net.
package reach

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"io"
	"net"
	"strings"
	"syscall"
)

// Lost reports whether err means the data could not be reached for a
// moment: a connection refused, reset or cut, a connection database/sql
// found bad or done, a timeout of the network, a message from the
// database cut in the middle (io.ErrUnexpectedEOF: pgx reports so a
// connection the database closes while it opens, during a restart), a
// connection the driver found closed under a query (pgx's
// pgconn.ErrConnClosed, go-sql-driver/mysql's ErrInvalidConn), and a
// database that says it is shutting down or not accepting connections
// yet (SQLSTATE classes 08 and 57P, as pgx and lib/pq report them). A
// cancelled context is never a lost database.
func Lost(err error) bool {
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
// sent; nor is a reset connection, and both are a lost database. No
// driver is imported, so the sentinel is known by its text, and only as a
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
