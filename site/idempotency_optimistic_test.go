package site_test

import (
	"context"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site"
	"github.com/affordances-go/affordances/site/idempotency"
	"github.com/affordances-go/affordances/site/sitetest"
)

// onCommit is an optimistic key store (idempotency.Optimistic) in memory:
// the action writes its key with its changes (commit), refusing a key
// another call holds, as a database store does in its transaction. It
// counts what the site asks of it.
type onCommit struct {
	mu                     sync.Mutex
	keys                   map[[2]string]idempotency.Record
	reads, finishes, frees int
}

func (s *onCommit) ClaimsOnCommit() bool { return true }

func (s *onCommit) Claim(_ context.Context, scope, key, _, _ string, _, _ time.Duration) (idempotency.Record, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reads++
	r, ok := s.keys[[2]string{scope, key}]
	return r, !ok, nil
}

func (s *onCommit) Finish(_ context.Context, scope, key, claim string, delta []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.finishes++
	k := [2]string{scope, key}
	if r := s.keys[k]; r.Claim == claim {
		r.State, r.Delta = idempotency.Done, delta
		s.keys[k] = r
	}
	return nil
}

func (s *onCommit) Release(context.Context, string, string, string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.frees++
	return nil
}

// commit writes the key of the call running with ctx, as an action's
// transaction would, and fails when another call holds it.
func (s *onCommit) commit(ctx context.Context) error {
	c, ok := site.IdempotencyOf(ctx)
	if !ok {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	k := [2]string{c.Scope, c.Key}
	if r, held := s.keys[k]; held && r.Claim != c.Claim {
		return site.Unavailable("another call with this key ran first")
	}
	s.keys[k] = idempotency.Record{Fingerprint: c.Fingerprint, State: idempotency.Committed, Claim: c.Claim}
	return nil
}

// With an optimistic store a call that succeeds never reads its key, and
// one that fails reads it once: a repeat of a call that succeeded, which
// fails (its action loses the key, or its guard no longer holds), gets the
// first call's delta; a new call that fails keeps its own error; and
// nothing is ever released, since nothing was written before the action.
func TestIdempotency_OptimisticStore(t *testing.T) {
	store := &onCommit{keys: map[[2]string]idempotency.Record{}}
	s := site.New(site.Options{Auth: approvalAuth, Idempotency: site.IdempotencyOptions{Store: store},
		Logger: slog.New(slog.DiscardHandler), AuditLogger: slog.New(slog.DiscardHandler)})
	p := s.Page("/p", site.PageOptions{View: shopView})
	stock := 1
	ran := 0
	site.Handle(p, site.Action{Name: "order", Expose: protocol.ExposeSession,
		Guard: site.Guard{Text: "in stock", Check: func(*site.Request, *site.State) (bool, string) {
			return stock > 0, "sold out"
		}}}, func(r *site.Request, in idemInput) (site.Result[int], error) {
		if in.N < 0 {
			return site.Result[int]{}, site.Unavailable("no")
		}
		if err := store.commit(r.Context()); err != nil {
			return site.Result[int]{}, err
		}
		ran++
		stock--
		return site.Result[int]{Output: ran, Message: "Ordered."}, nil
	})
	site.Handle(p, site.Action{Name: "pay", Expose: protocol.ExposeConfirm}, func(r *site.Request, in idemInput) (site.Result[int], error) {
		if err := store.commit(r.Context()); err != nil {
			return site.Result[int]{}, err
		}
		return site.Result[int]{Output: in.N, Message: "Paid."}, nil
	})
	c := sitetest.New(t, s)
	call := func(key, body string) *sitetest.Response {
		return c.CallBody("/p", body, sitetest.Header("Authorization", "Bearer agent-a", "Idempotency-Key", key))
	}
	body := `{"action":"order","input":{"n":1}}`

	first := call("k1", body)
	if first.Code != 200 || ran != 1 || store.reads != 0 {
		t.Fatalf("first call: %d, ran %d, %d reads of the key (want 0)", first.Code, ran, store.reads)
	}
	// Sold out now: the repeat's guard refuses, and the key's read tells
	// it is a repeat.
	again := call("k1", body)
	if again.Code != 200 || again.Header().Get("Idempotent-Replayed") != "true" || ran != 1 || store.reads != 1 {
		t.Fatalf("repeat after the guard changed: %d %q, ran %d, %d reads", again.Code, again.Header().Get("Idempotent-Replayed"), ran, store.reads)
	}
	if d1, d2 := first.Delta(), again.Delta(); d1.Message != d2.Message || d1.Output != d2.Output {
		t.Errorf("the replay differs: %+v vs %+v", d1, d2)
	}
	// In stock again: the repeat runs up to its action, which loses the
	// key; the read answers the first call's delta, and nothing ran twice.
	stock = 5
	if res := call("k1", body); res.Code != 200 || res.Header().Get("Idempotent-Replayed") != "true" || ran != 1 || stock != 5 {
		t.Fatalf("repeat that reached its action: %d, ran %d, stock %d", res.Code, ran, stock)
	}
	// The same key for another call: refused as before.
	if res := call("k1", `{"action":"order","input":{"n":2}}`); res.Code != 409 || ran != 1 {
		t.Errorf("the key for another input: %d, ran %d", res.Code, ran)
	}
	// A new call that fails keeps its own error, and its key stays free.
	if res := call("k2", `{"action":"order","input":{"n":-1}}`); res.Code != 409 || res.Delta().Error == nil || res.Delta().Error.Message != "no" {
		t.Errorf("a failing new call: %d %+v", res.Code, res.Delta().Error)
	}
	if res := call("k2", body); res.Code != 200 || res.Header().Get("Idempotent-Replayed") != "" || ran != 2 {
		t.Errorf("the key of a failed call, used again: %d, ran %d", res.Code, ran)
	}
	if store.frees != 0 || store.finishes != 2 {
		t.Errorf("%d releases (want 0), %d deltas stored (want 2)", store.frees, store.finishes)
	}
	// A confirm action's key is read before the call: its confirmation
	// step may write (ask for or use an approval), so a repeat must be
	// known before it.
	reads := store.reads
	if res := call("k3", `{"action":"pay","input":{"n":3},"confirm":true}`); res.Code != 200 || store.reads != reads+1 {
		t.Errorf("a confirm action's call: %d, %d reads of its key (want 1)", res.Code, store.reads-reads)
	}
	if res := call("k3", `{"action":"pay","input":{"n":3},"confirm":true}`); res.Code != 200 || res.Header().Get("Idempotent-Replayed") != "true" || store.reads != reads+2 {
		t.Errorf("its repeat: %d %q, %d reads", res.Code, res.Header().Get("Idempotent-Replayed"), store.reads-reads)
	}
}
