package site_test

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"

	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site"
	"github.com/affordances-go/affordances/site/sitetest"
)

// pgError is how pgx and lib/pq report a server's error: with its SQLSTATE.
type pgError struct{ code string }

func (e pgError) Error() string    { return "server: " + e.code }
func (e pgError) SQLState() string { return e.code }

// pgconnError is how pgx wraps an error of its connection, here with
// whether the query surely never reached the server.
type pgconnError struct {
	err   error
	retry bool
}

func (e *pgconnError) Error() string     { return e.err.Error() }
func (e *pgconnError) Unwrap() error     { return e.err }
func (e *pgconnError) SafeToRetry() bool { return e.retry }

func TestUnreachable_TellsALostDatabaseFromABug(t *testing.T) {
	for _, c := range []struct {
		err  error
		want bool
	}{
		{driver.ErrBadConn, true},
		{fmt.Errorf("placing the order: %w", sql.ErrConnDone), true},
		{&net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}, true},
		{fmt.Errorf("query: %w", syscall.ECONNRESET), true},
		{pgError{"57P01"}, true},  // admin_shutdown: a fast restart
		{pgError{"08006"}, true},  // connection_failure
		{pgError{"23505"}, false}, // unique_violation: the code's own
		{sql.ErrNoRows, false},
		// pgx, when the database closes a connection it is opening
		// (a restart): a message cut in the middle.
		{fmt.Errorf("failed to connect: 127.0.0.1:5432: failed to receive message: %w", io.ErrUnexpectedEOF), true},
		{io.EOF, false}, // the end of something read whole: the code's own
		// pgx, when the database closed the connection under a query
		// (a restart): its ErrConnClosed, "conn closed", not safe to retry.
		{fmt.Errorf("tokens: reading a token: failed to deallocate cached statement(s): %w",
			&pgconnError{err: errors.New("conn closed")}), true},
		{errors.New("the conn closed its account"), false},
		{context.Canceled, false},
		{errors.New("disk on fire"), false},
	} {
		if got := site.Unreachable(c.err); got != c.want {
			t.Errorf("Unreachable(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}

// An action or a loader whose database went away answers 503 unavailable
// with Retry-After, on every door; a bug still answers 500 internal, and
// neither shows the error.
func TestUnreachable_AnswersServiceUnavailableWithRetryAfter(t *testing.T) {
	var fail error
	s := site.New(site.Options{Logger: slog.New(slog.DiscardHandler)})
	p := s.Page("/things", site.PageOptions{Load: func(r *site.Request) (*site.State, error) {
		if r.Method == "GET" && fail != nil {
			return nil, fail
		}
		return &site.State{}, nil
	}})
	site.Handle(p, site.Action{Name: "make", Expose: protocol.ExposePublic}, func(r *site.Request, in struct{}) (site.Done, error) {
		return site.Done{}, fail
	})
	c := sitetest.New(t, s)
	lost := fmt.Errorf("inserting: %w", &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET})
	for _, tc := range []struct {
		err    error
		status int
		code   protocol.ErrorCode
	}{
		{lost, 503, protocol.CodeUnavailable},
		{pgError{"57P01"}, 503, protocol.CodeUnavailable},
		{errors.New("disk on fire"), 500, protocol.CodeInternal},
	} {
		fail = tc.err
		w := c.CallBody("/things", `{"action":"make"}`)
		if w.Code != tc.status || w.ErrorCode() != string(tc.code) || strings.Contains(w.Body.String(), "ECONNRESET") {
			t.Errorf("call with %v: %d %s", tc.err, w.Code, w.Body)
		}
		if tc.status == 503 && w.Header().Get("Retry-After") != "1" {
			t.Errorf("call with %v: Retry-After %q", tc.err, w.Header().Get("Retry-After"))
		}
		g := c.Get("/things", sitetest.Header("Accept", protocol.MediaType))
		if g.Code != tc.status || g.ErrorCode() != string(tc.code) {
			t.Errorf("graph with %v: %d %s", tc.err, g.Code, g.Body)
		}
	}
	// The site's own test decides.
	strict := site.New(site.Options{Logger: slog.New(slog.DiscardHandler), Unreachable: func(error) bool { return false }})
	sp := strict.Page("/things", site.PageOptions{})
	site.Handle(sp, site.Action{Name: "make", Expose: protocol.ExposePublic}, func(r *site.Request, in struct{}) (site.Done, error) {
		return site.Done{}, lost
	})
	if w := sitetest.New(t, strict).CallBody("/things", `{"action":"make"}`); w.Code != 500 {
		t.Errorf("with Options.Unreachable saying no: %d", w.Code)
	}
}

// A caller that hangs up before the answer is not the site failing: the
// action that stops with the request's cancellation is logged below
// ERROR, and the answer (which nobody reads) is recorded as 499, the
// status proxies use for a client that closed its request, not 500.
func TestUnreachable_ACallerThatHangsUpIsNotAnInternalError(t *testing.T) {
	var logs strings.Builder
	s := site.New(site.Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	p := s.Page("/things", site.PageOptions{})
	site.Handle(p, site.Action{Name: "make", Expose: protocol.ExposePublic}, func(r *site.Request, in struct{}) (site.Done, error) {
		<-r.Context().Done() // the action waits on its database, which gives up with the request
		return site.Done{}, fmt.Errorf("inserting: %w", r.Context().Err())
	})
	site.Handle(p, site.Action{Name: "own", Expose: protocol.ExposePublic}, func(r *site.Request, in struct{}) (site.Done, error) {
		return site.Done{}, context.Canceled
	})
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // the caller is gone
	req := httptest.NewRequestWithContext(ctx, "POST", "/things", strings.NewReader(`{"action":"make"}`))
	req.Header.Set("Content-Type", protocol.MediaType)
	req.Header.Set("Accept", protocol.MediaType)
	w := httptest.NewRecorder()
	s.ServeHTTP(w, req)
	if w.Code != 499 || strings.Contains(logs.String(), "level=ERROR") {
		t.Errorf("a cancelled call: %d %s, logged:\n%s", w.Code, w.Body, logs.String())
	}
	// The site's own code cancelling something of its own, with the
	// caller still there, is still a bug.
	logs.Reset()
	if w := sitetest.New(t, s).CallBody("/things", `{"action":"own"}`); w.Code != 500 || !strings.Contains(logs.String(), "level=ERROR") {
		t.Errorf("the code's own cancellation: %d, logged:\n%s", w.Code, logs.String())
	}
}

// safeToRetry is an error of a driver that did not reach the server with
// the query (pgx's for a connection it could not use).
type safeToRetry struct{ safe bool }

func (e safeToRetry) Error() string     { return "conn closed" }
func (e safeToRetry) SafeToRetry() bool { return e.safe }

// An error the driver says is safe to retry never reached the database:
// it is unreachable, not the code's.
func TestUnreachable_WhatTheDriverSaysIsSafeToRetry(t *testing.T) {
	if !site.Unreachable(fmt.Errorf("begin: %w", safeToRetry{true})) || site.Unreachable(safeToRetry{false}) {
		t.Error("SafeToRetry is not read")
	}
}
