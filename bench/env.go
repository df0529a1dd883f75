package main

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"

	"github.com/affordances-go/affordances/examples/shop/shop"
	"github.com/affordances-go/affordances/site/ratelimit"
)

// Env is the demo store the measurements run against: its data, its
// handler, and the demo account's token and id.
type Env struct {
	dir    string
	db     *shop.DB
	store  *shop.Store
	app    *shop.App
	token  string
	userID int64
	calls  int // calls that added to the cart since it was last emptied
}

func startEnv(ctx context.Context) (*Env, error) {
	// In memory where the machine has it (/dev/shm): the rows measure the
	// library and the store's work, not a shared disk's noise.
	tmp := ""
	if st, err := os.Stat("/dev/shm"); err == nil && st.IsDir() {
		tmp = "/dev/shm"
	}
	dir, err := os.MkdirTemp(tmp, "affordances-bench-")
	if err != nil {
		return nil, err
	}
	db, err := shop.Open(ctx, filepath.Join(dir, "shop.db"))
	if err != nil {
		return nil, err
	}
	e, err := newEnv(ctx, db)
	if err != nil {
		db.Close()
		return nil, err
	}
	e.dir = dir
	return e, nil
}

// newEnv is the demo store on db, seeded, with a token of the demo account.
func newEnv(ctx context.Context, db *shop.DB) (*Env, error) {
	store := shop.NewStore(db)
	store.PasswordIterations = 1000 // sign-in is not what is measured
	if err := store.Seed(ctx); err != nil {
		return nil, err
	}
	uid, err := store.UserByEmail(ctx, shop.DemoEmail)
	if err != nil {
		return nil, err
	}
	tok, err := store.CreateToken(ctx, uid, "bench")
	if err != nil {
		return nil, err
	}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil)) // the audit log is formatted, then dropped
	// The rate limiter runs on every call, but with a limit no benchmark reaches.
	app := shop.New(store, shop.Options{Logger: quiet, DefaultLimit: ratelimit.PerMinute(1<<40, 1<<30), NoApprovals: true}) // v0 alone
	return &Env{db: db, store: store, app: app, token: tok, userID: uid}, nil
}

func (e *Env) close() {
	e.store.Close(context.Background()) // the deltas still on their way, the sweeps running
	e.db.Close()
	if e.dir != "" {
		os.RemoveAll(e.dir)
	}
}

// serve runs a handler on a loopback port until the returned stop.
func serve(h http.Handler) (url string, stop func(), err error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	srv := &http.Server{Handler: h}
	go srv.Serve(ln)
	return "http://" + ln.Addr().String(), func() { srv.Close() }, nil
}

// resetCart empties the demo account's cart, so a measured call does the
// same work every time.
func (e *Env) resetCart(ctx context.Context) {
	// The id in the text: the same statement on SQLite and PostgreSQL.
	e.db.ExecContext(ctx, `DELETE FROM cart_items WHERE cart_id IN (SELECT id FROM carts WHERE user_id = `+strconv.FormatInt(e.userID, 10)+`)`)
}

// beforeAdd keeps the demo cart under the per-line maximum: every eighth
// call that adds to it, by any side of a comparison, empties it first, so
// that every measured call does the same work.
func (e *Env) beforeAdd(ctx context.Context) {
	if e.calls++; e.calls%8 == 0 {
		e.resetCart(ctx)
	}
}
