package site_test

import (
	"context"
	"database/sql/driver"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/affordances-go/affordances/internal/syncbuf"
	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site"
	"github.com/affordances-go/affordances/site/idempotency"
	"github.com/affordances-go/affordances/site/sitetest"
)

// txStock is a database of one number (a stock) with transactions, as
// PageOptions.Transact sees one: a transaction works on its own copy,
// carried by its context, and a commit publishes it. It counts what the
// site asked of it, and can be told to fail its next commit.
type txStock struct {
	mu                          sync.Mutex
	stock                       int
	begun, commits, rollbacks   int
	failCommit                  error
	keys                        map[string]idempotency.Record // keyed answers, committed with the stock
	finishes, finishesOutsideTx int
	failFinish                  error
	logs                        syncbuf.Buffer // what the site logged
}

// stockTx is one transaction of txStock.
type stockTx struct {
	stock int
	keys  map[string]idempotency.Record
}

type stockTxKey struct{}

func (db *txStock) transact(ctx context.Context, fn func(context.Context) error) error {
	db.mu.Lock()
	tx := &stockTx{stock: db.stock, keys: map[string]idempotency.Record{}}
	db.begun++
	db.mu.Unlock()
	err := fn(context.WithValue(ctx, stockTxKey{}, tx))
	db.mu.Lock()
	defer db.mu.Unlock()
	if err == nil && db.failCommit != nil {
		err, db.failCommit = db.failCommit, nil
	}
	if err != nil {
		db.rollbacks++
		return err
	}
	db.commits++
	db.stock = tx.stock
	for k, d := range tx.keys {
		db.keys[k] = d
	}
	return nil
}

// txOf is the transaction ctx carries, or nil.
func txOf(ctx context.Context) *stockTx {
	tx, _ := ctx.Value(stockTxKey{}).(*stockTx)
	return tx
}

// The key store of txStock: optimistic, a key written with its answer
// in the call's transaction, refused when another call committed it.
func (db *txStock) ClaimsOnCommit() bool { return true }

func (db *txStock) Claim(_ context.Context, scope, key, _, _ string, _, _ time.Duration) (idempotency.Record, bool, error) {
	db.mu.Lock()
	defer db.mu.Unlock()
	r, ok := db.keys[scope+" "+key]
	return r, !ok, nil
}

func (db *txStock) Finish(ctx context.Context, scope, key, _ string, delta []byte) error {
	db.mu.Lock()
	defer db.mu.Unlock()
	db.finishes++
	tx := txOf(ctx)
	if tx == nil {
		db.finishesOutsideTx++
		return nil
	}
	if db.failFinish != nil {
		return db.failFinish
	}
	if _, held := db.keys[scope+" "+key]; held {
		// As a database's key store does: the key is written here,
		// and a key another call committed is refused.
		return site.Unavailable("another call with this key ran first")
	}
	c, _ := site.IdempotencyOf(ctx)
	tx.keys[scope+" "+key] = idempotency.Record{Fingerprint: c.Fingerprint, State: idempotency.Done, Delta: delta}
	return nil
}

func (db *txStock) Release(context.Context, string, string, string) error { return nil }

var txStockKey = site.NewKey[int]("stock")

// newTxSite is a page whose stock the guard reads and whose actions take
// from it, all in db's transactions: take (session), pay (confirm) and
// fail (an action whose write is followed by an error).
func newTxSite(t *testing.T, db *txStock) (*sitetest.Client, *[]string) {
	t.Helper()
	var seen []string // what each loader and action found: "tx" or "no tx"
	where := func(ctx context.Context) string {
		if txOf(ctx) != nil {
			return "tx"
		}
		return "no tx"
	}
	s := site.New(site.Options{Auth: approvalAuth, Idempotency: site.IdempotencyOptions{Store: db},
		Logger: slog.New(slog.NewTextHandler(&db.logs, nil)), AuditLogger: slog.New(slog.DiscardHandler)})
	p := s.Page("/p", site.PageOptions{View: shopView, Transact: db.transact,
		Entities: []site.EntityLoader{site.Entity(txStockKey, func(r *site.Request) (int, error) {
			seen = append(seen, "load "+where(r.Context()))
			if tx := txOf(r.Context()); tx != nil {
				return tx.stock, nil
			}
			db.mu.Lock()
			defer db.mu.Unlock()
			return db.stock, nil
		})}})
	inStock := site.Guard{Text: "in stock", Check: func(_ *site.Request, st *site.State) (bool, string) {
		return txStockKey.Get(st) > 0, "sold out"
	}}
	take := func(r *site.Request) {
		seen = append(seen, "act "+where(r.Context()))
		if tx := txOf(r.Context()); tx != nil {
			tx.stock--
		} else {
			db.mu.Lock()
			db.stock--
			db.mu.Unlock()
		}
	}
	site.Handle(p, site.Action{Name: "take", Expose: protocol.ExposeSession, Guard: inStock, Effects: site.Effects(txStockKey)},
		func(r *site.Request, in struct{}) (site.Done, error) {
			take(r)
			return site.Done{Message: "Taken."}, nil
		})
	site.Handle(p, site.Action{Name: "fail", Expose: protocol.ExposeSession, Guard: inStock, Effects: site.Effects(txStockKey)},
		func(r *site.Request, in struct{}) (site.Done, error) {
			take(r)
			return site.Done{}, site.Unavailable("the last step failed")
		})
	site.Handle(p, site.Action{Name: "pay", Expose: protocol.ExposeConfirm, Guard: inStock, Effects: site.Effects(txStockKey)},
		func(r *site.Request, in struct{}) (site.Done, error) {
			take(r)
			return site.Done{Message: "Paid."}, nil
		})
	return sitetest.New(t, s), &seen
}

var agentA = sitetest.Header("Authorization", "Bearer agent-a")

// A call's guard, action and delta run in one transaction of the page's:
// the guard's read and the delta's read are the transaction's, the
// delta shows the action's write before it is committed, and the write is
// kept once the transaction commits.
func TestTransact_GuardActionAndDeltaInOneTransaction(t *testing.T) {
	db := &txStock{stock: 2, keys: map[string]idempotency.Record{}}
	c, seen := newTxSite(t, db)
	r := c.CallBody("/p", `{"action":"take","input":{}}`, agentA)
	if r.Code != 200 {
		t.Fatalf("take: %d %s", r.Code, r.Body)
	}
	if got := r.Delta().Changed["stock"]; got != float64(1) {
		t.Errorf("the delta's stock is %v, want 1 (read in the transaction, after the action)", got)
	}
	if db.begun != 1 || db.commits != 1 || db.rollbacks != 0 || db.stock != 1 {
		t.Errorf("begun %d, committed %d, rolled back %d, stock %d: want 1, 1, 0, 1", db.begun, db.commits, db.rollbacks, db.stock)
	}
	if want := []string{"load tx", "act tx", "load tx"}; !slices.Equal(*seen, want) {
		t.Errorf("loaders and action ran %v, want %v", *seen, want)
	}
	// Reading the page is no call: no transaction.
	*seen = nil
	c.Graph("/p", agentA)
	if db.begun != 1 || !slices.Equal(*seen, []string{"load no tx"}) {
		t.Errorf("a graph began a transaction (%d in all) or read in one: %v", db.begun, *seen)
	}
}

// A call that fails rolls its transaction back, whichever step stopped it:
// the guard, or the action after it wrote.
func TestTransact_AFailedCallRollsBack(t *testing.T) {
	db := &txStock{stock: 1, keys: map[string]idempotency.Record{}}
	c, _ := newTxSite(t, db)
	if r := c.CallBody("/p", `{"action":"fail","input":{}}`, agentA); r.Code != 409 || r.ErrorCode() != "unavailable" {
		t.Fatalf("fail: %d %s", r.Code, r.Body)
	}
	if db.stock != 1 || db.rollbacks != 1 || db.commits != 0 {
		t.Fatalf("after an action that wrote and failed: stock %d, %d rollbacks, %d commits; want 1, 1, 0", db.stock, db.rollbacks, db.commits)
	}
	db.stock = 0
	if r := c.CallBody("/p", `{"action":"take","input":{}}`, agentA); r.Code != 409 || r.ErrorCode() != "unavailable" {
		t.Fatalf("take when sold out: %d %s", r.Code, r.Body)
	}
	if db.rollbacks != 2 || db.commits != 0 {
		t.Fatalf("a guard's refusal: %d rollbacks, %d commits; want 2, 0", db.rollbacks, db.commits)
	}
}

// A commit that fails fails the call: the action did not happen, and the
// caller is told so without the database's words.
func TestTransact_AFailedCommitFailsTheCall(t *testing.T) {
	db := &txStock{stock: 1, keys: map[string]idempotency.Record{}}
	db.failCommit = errors.New("disk I/O error at page 7")
	c, _ := newTxSite(t, db)
	r := c.CallBody("/p", `{"action":"take","input":{}}`, agentA)
	if r.Code != 500 || r.ErrorCode() != "internal" {
		t.Fatalf("a failed commit answered %d %s, want 500 internal", r.Code, r.Body)
	}
	if strings.Contains(r.Body.String(), "disk") {
		t.Errorf("the answer leaks the database's error: %s", r.Body)
	}
	if db.stock != 1 {
		t.Errorf("stock %d after a failed commit, want 1", db.stock)
	}
	// An error of the site's package is the application's answer.
	db.failCommit = site.Unavailable("the shelf was emptied meanwhile")
	r = c.CallBody("/p", `{"action":"take","input":{}}`, agentA)
	if r.Code != 409 || r.ErrorCode() != "unavailable" || !strings.Contains(r.Body.String(), "shelf") || db.stock != 1 {
		t.Fatalf("a commit refused with Unavailable answered %d %s (stock %d), want 409 unavailable with its message", r.Code, r.Body, db.stock)
	}
}

// A keyed call's answer is stored in its transaction: kept with the
// action's write, and when it cannot be stored, the call fails and its
// write is rolled back with it. A repeat gets the first answer.
func TestTransact_AKeyedAnswerCommitsWithTheAction(t *testing.T) {
	db := &txStock{stock: 5, keys: map[string]idempotency.Record{}}
	c, _ := newTxSite(t, db)
	call := func(key string) *sitetest.Response {
		return c.CallBody("/p", `{"action":"take","input":{}}`, sitetest.Header("Authorization", "Bearer agent-a", "Idempotency-Key", key))
	}
	first := call("k1")
	if first.Code != 200 || db.finishes != 1 || db.finishesOutsideTx != 0 || len(db.keys) != 1 || db.stock != 4 {
		t.Fatalf("first call: %d, %d finishes (%d outside the transaction), %d keys, stock %d", first.Code, db.finishes, db.finishesOutsideTx, len(db.keys), db.stock)
	}
	again := call("k1")
	if again.Code != 200 || again.Header().Get("Idempotent-Replayed") != "true" || db.stock != 4 || again.Body.String() != first.Body.String() {
		t.Fatalf("repeat: %d %q, stock %d\n%s\n%s", again.Code, again.Header().Get("Idempotent-Replayed"), db.stock, again.Body, first.Body)
	}
	db.failFinish = site.Unavailable("another call with this key ran first")
	lost := call("k2")
	if lost.Code != 409 || db.stock != 4 || len(db.keys) != 1 {
		t.Fatalf("an answer that could not be stored: %d %s, stock %d, %d keys; want 409, 4, 1", lost.Code, lost.Body, db.stock, len(db.keys))
	}
	db.failFinish = errors.New("constraint failed: idempotency_keys")
	if r := call("k3"); r.Code != 500 || strings.Contains(r.Body.String(), "constraint") || db.stock != 4 {
		t.Fatalf("a store's failure: %d %s, stock %d; want 500 internal, 4", r.Code, r.Body, db.stock)
	}
}

// An answer that cannot be stored because the database went away is the
// call's failure, answered 503 and logged once, as a warning: not an
// error of the site's code.
func TestTransact_AnAnswerLostToTheDatabaseIsAWarning(t *testing.T) {
	db := &txStock{stock: 5, keys: map[string]idempotency.Record{}}
	c, _ := newTxSite(t, db)
	db.failFinish = driver.ErrBadConn
	r := c.CallBody("/p", `{"action":"take","input":{}}`, sitetest.Header("Authorization", "Bearer agent-a", "Idempotency-Key", "k1"))
	if r.Code != 503 || r.Header().Get("Retry-After") == "" || db.stock != 5 {
		t.Fatalf("answered %d (Retry-After %q), stock %d; want 503 with Retry-After, 5", r.Code, r.Header().Get("Retry-After"), db.stock)
	}
	logs := db.logs.String()
	if strings.Contains(logs, "level=ERROR") || strings.Count(logs, "level=WARN") != 1 {
		t.Errorf("want one warning and no error, logged:\n%s", logs)
	}
}

// A Transact that returns nil without running the call is a bug of the
// application's: the call fails as internal, and nothing runs.
func TestTransact_ATransactThatSkipsTheCall(t *testing.T) {
	s := site.New(site.Options{Logger: slog.New(slog.DiscardHandler), AuditLogger: slog.New(slog.DiscardHandler)})
	p := s.Page("/p", site.PageOptions{View: shopView,
		Transact: func(context.Context, func(context.Context) error) error { return nil }})
	ran := false
	site.Handle(p, site.Action{Name: "take", Expose: protocol.ExposePublic}, func(r *site.Request, in struct{}) (site.Done, error) {
		ran = true
		return site.Done{}, nil
	})
	r := sitetest.New(t, s).CallBody("/p", `{"action":"take","input":{}}`)
	if r.Code != 500 || r.ErrorCode() != "internal" || ran {
		t.Fatalf("answered %d %s, ran %v; want 500 internal, nothing run", r.Code, r.Body, ran)
	}
}

// A confirm action runs without the page's transaction: its confirmation
// step may write what a rollback must not undo.
func TestTransact_NotForConfirmActions(t *testing.T) {
	db := &txStock{stock: 1, keys: map[string]idempotency.Record{}}
	c, seen := newTxSite(t, db)
	if r := c.CallBody("/p", `{"action":"pay","input":{},"confirm":true}`, agentA); r.Code != 200 {
		t.Fatalf("pay: %d %s", r.Code, r.Body)
	}
	if db.begun != 0 || db.stock != 0 {
		t.Errorf("a confirm action began %d transactions (stock %d), want 0 (stock 0)", db.begun, db.stock)
	}
	for _, s := range *seen {
		if s == "act tx" || s == "load tx" {
			t.Errorf("a confirm action ran in a transaction: %v", *seen)
		}
	}
}
