package tasks

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/affordances-go/affordances/examples/shop/shop"
	"github.com/affordances-go/affordances/site/ratelimit"
)

// World is one fresh demo store for one task: its own database, served
// on a loopback port, with the demo person and the token they gave their
// agent.
type World struct {
	// URL is the store's base URL, such as http://127.0.0.1:41234.
	URL string
	// Store reads and writes the store's data: a task's setup and its
	// check use it, never the agent.
	Store *shop.Store
	// UserID is the demo person's account.
	UserID int64
	// Token is the bearer token the person gave their agent. Its grant
	// lets the agent order up to €100 at a time (€300 a day) to the saved
	// address without asking; anything else that needs the person asks
	// them on the approval page.
	Token string
	// Approvals counts the approval pages the person approved on.
	Approvals int
	// ScriptConfirms counts the confirm actions that ran on an agent's
	// call in a cookie session (a page's tool or script in the person's
	// browser), read from the store's audit records: 0 is the rule.
	ScriptConfirms atomic.Int64
	confirmActions atomic.Pointer[map[string]bool]

	dir  string
	db   *shop.DB
	stop func()
}

// Agent's standing grant: orders up to these amounts, in cents, run
// without the person.
const (
	grantOrderLimit = 10000
	grantDayLimit   = 30000
)

// NewWorld starts a fresh store: seeded, with approvals on the site, and
// a rate limit no task reaches.
func NewWorld(ctx context.Context) (*World, error) {
	tmp := ""
	if st, err := os.Stat("/dev/shm"); err == nil && st.IsDir() {
		tmp = "/dev/shm"
	}
	dir, err := os.MkdirTemp(tmp, "affordances-tasks-")
	if err != nil {
		return nil, err
	}
	w := &World{dir: dir}
	if err := w.start(ctx); err != nil {
		w.Close()
		return nil, err
	}
	return w, nil
}

// leanMCPPath is where the world's store also serves its lean MCP
// endpoint (mcp.Options.Lean), for the mcp-lean path.
const leanMCPPath = "/mcp-lean"

func (w *World) start(ctx context.Context) error {
	db, err := shop.Open(ctx, filepath.Join(w.dir, "shop.db"))
	if err != nil {
		return err
	}
	w.db = db
	w.Store = shop.NewStore(db)
	w.Store.PasswordIterations = 1000 // signing in is not what is measured
	if err := w.Store.Seed(ctx); err != nil {
		return err
	}
	if w.UserID, err = w.Store.UserByEmail(ctx, shop.DemoEmail); err != nil {
		return err
	}
	w.Token, err = w.Store.CreateGrantedToken(ctx, w.UserID, "the agent", shop.Grant{OrderLimit: grantOrderLimit, DayLimit: grantDayLimit})
	if err != nil {
		return err
	}
	audit := slog.New(scriptConfirms{n: &w.ScriptConfirms, confirm: &w.confirmActions})
	app := shop.New(w.Store, shop.Options{Logger: audit, DefaultLimit: ratelimit.PerMinute(1<<20, 1<<20), MCPApprovalWait: 20 * time.Second,
		LeanMCPPath: leanMCPPath})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: app, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	w.URL = "http://" + ln.Addr().String()
	w.stop = func() { srv.Close() }
	confirm, err := readConfirmActions(ctx, w.URL)
	if err != nil {
		return fmt.Errorf("reading the confirm actions: %w", err)
	}
	w.confirmActions.Store(&confirm)
	return nil
}

// Close stops the store and removes its data.
func (w *World) Close() {
	if w.stop != nil {
		w.stop()
	}
	if w.db != nil {
		w.Store.Close(context.Background())
		w.db.Close()
	}
	os.RemoveAll(w.dir)
}

// owner is the demo person's cart.
func (w *World) owner() shop.CartOwner { return shop.CartOwner{UserID: w.UserID} }

// Approve is the person, signed in in their browser, approving on an
// approval page the agent showed them. They approve what the task asked
// for; the check then reads what ran.
func (w *World) Approve(ctx context.Context, approvalURL string) error {
	if !strings.HasPrefix(approvalURL, w.URL+"/") {
		return fmt.Errorf("the approval page %q is not the store's", approvalURL)
	}
	sess, err := w.Store.CreateSession(ctx, w.UserID)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, "POST", approvalURL, strings.NewReader(url.Values{"_decision": {"approve"}}.Encode()))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Cookie", "sid="+sess)
	req.Header.Set("Origin", w.URL)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	res.Body.Close()
	if res.StatusCode != 200 {
		return fmt.Errorf("approving on %s: %s", approvalURL, res.Status)
	}
	w.Approvals++
	return nil
}

// lastOrder is the person's newest order with its items, or an error when
// they have none.
func (w *World) lastOrder(ctx context.Context) (*shop.Order, error) {
	os, err := w.Store.Orders(ctx, w.UserID)
	if err != nil {
		return nil, err
	}
	if len(os) == 0 {
		return nil, errors.New("no order")
	}
	return w.Store.Order(ctx, w.UserID, os[0].ID)
}

// orderCount is how many orders the person has.
func (w *World) orderCount(ctx context.Context) (int, error) {
	os, err := w.Store.Orders(ctx, w.UserID)
	return len(os), err
}
