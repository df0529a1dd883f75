// Package shoptest starts the demo store on a loopback port with a fresh
// database, for the tests of the client, the command line, the
// conformance checker and the benchmarks.
package shoptest

import (
	"context"
	"log/slog"
	"net"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/affordances-go/affordances/examples/shop/shop"
)

// Shop is a running demo store.
type Shop struct {
	// URL is the store's base URL, such as http://127.0.0.1:41234.
	URL string
	// LocalURL is the same server at http://localhost:PORT, where a
	// browser can use passkeys (their RP ID is a domain).
	LocalURL string
	// Store is the store's data, for checking what calls did.
	Store *shop.Store
	// Token is a bearer token of the demo account.
	Token string
	// App is the store's handler.
	App *shop.App
}

// Start starts the store for the test, with plain v0 confirmation (no
// approvals on the site), for the tests of v0 clients, the checker and
// the benchmarks; it stops when the test ends.
func Start(t testing.TB) *Shop { t.Helper(); return StartWith(t, shop.Options{NoApprovals: true}) }

// StartWith starts the store with options, such as a higher rate limit
// for tests that send many calls as one caller; the zero Options are the
// store as go run ./examples/shop starts it, with approvals. A nil Logger
// logs warnings and errors to stderr.
func StartWith(t testing.TB, opts shop.Options) *Shop {
	t.Helper()
	return StartOn(t, filepath.Join(t.TempDir(), "shop.db"), opts)
}

// StartOn starts the store with options on the database at dsn: the path
// of an SQLite file, or a postgres:// URL (such as one of
// servers.StartPostgres), seeded on first use.
func StartOn(t testing.TB, dsn string, opts shop.Options) *Shop {
	t.Helper()
	ctx := context.Background()
	db, err := shop.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	store := shop.NewStore(db)
	t.Cleanup(func() {
		store.Close(context.Background())
		db.Close()
	})
	store.PasswordIterations = 1000 // tests sign in often; the store's default is 600,000
	if err := store.Seed(ctx); err != nil {
		t.Fatal(err)
	}
	// Audit records are Info; keep test output to warnings and errors.
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}
	srv := httptest.NewUnstartedServer(nil)
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	local := "http://localhost:" + port // passkeys need a domain: a browser test opens this
	if len(opts.PasskeyOrigins) == 0 && len(opts.Origins) == 0 {
		opts.PasskeyOrigins = []string{local}
	}
	app := shop.New(store, opts)
	srv.Config.Handler = app
	srv.Start()
	t.Cleanup(srv.Close)
	demo, err := store.UserByEmail(ctx, shop.DemoEmail)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := store.CreateToken(ctx, demo, "test")
	if err != nil {
		t.Fatal(err)
	}
	return &Shop{URL: srv.URL, LocalURL: local, Store: store, Token: tok, App: app}
}

// Stock returns the stock of a SKU.
func (s *Shop) Stock(t testing.TB, sku string) int {
	t.Helper()
	n, err := s.Store.Stock(context.Background(), sku)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// Orders returns how many orders the demo account has.
func (s *Shop) Orders(t testing.TB) int {
	t.Helper()
	ctx := context.Background()
	id, err := s.Store.UserByEmail(ctx, shop.DemoEmail)
	if err != nil {
		t.Fatal(err)
	}
	os, err := s.Store.Orders(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	return len(os)
}

// Digest returns the store's state digest (see shop.Store.StateDigest).
func (s *Shop) Digest(t testing.TB) string {
	t.Helper()
	d, err := s.Store.StateDigest(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return d
}
