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
		{io.ErrUnexpectedEOF, false},
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
