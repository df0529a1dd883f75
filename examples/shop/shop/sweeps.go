package shop

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"
)

// The store forgets, by itself, rows that can no longer be used: sessions
// past their time, and guest carts whose cookie has expired. Each sweep
// runs beside the request that adds such rows, at most once every
// sweepEvery, and deletes at most sweepBatch rows; an operator may run
// either from a cron job too. (Idempotency keys have their own, in
// idempotency.go.)

// sweepBatch bounds the rows one sweep deletes, so that it never holds the
// database for long; the next one takes the rest.
const sweepBatch = 10000

// guestCartLifetime is how long a guest's cart cookie lives (it is set
// once, when the cart is made): past it, the cart cannot be reached.
const guestCartLifetime = 30 * 24 * time.Hour

// ForgetExpiredSessions deletes up to 10,000 sessions past their time and
// returns how many. Sign-ins run it, at most once every sweepEvery, so the
// table holds the sessions that can still be used; an operator may run it
// too.
func (s *Store) ForgetExpiredSessions(ctx context.Context) (int, error) {
	res, err := s.db.ExecContext(ctx, `DELETE FROM sessions WHERE id_hash IN (
		SELECT id_hash FROM sessions WHERE expires_at < ? LIMIT `+fmt.Sprint(sweepBatch)+`)`, s.now().Unix())
	if err != nil {
		return 0, fmt.Errorf("forgetting expired sessions: %w", err)
	}
	n, _ := res.RowsAffected()
	return int(n), nil
}

// ForgetAbandonedGuestCarts deletes up to 10,000 guest carts (with their
// lines) made longer ago than a guest's cart cookie lives, and returns
// how many: nobody can reach them any more. A guest who signs in has
// their cart merged into their account's first, so what is deleted is
// only carts left behind; a cart with no date is kept. A guest's add to a
// cart runs it, at most once every sweepEvery; an operator may run it
// too.
func (s *Store) ForgetAbandonedGuestCarts(ctx context.Context) (int, error) {
	res, err := s.db.ExecContext(ctx, `DELETE FROM carts WHERE id IN (
		SELECT id FROM carts WHERE guest_hash IS NOT NULL AND created_at < ? LIMIT `+fmt.Sprint(sweepBatch)+`)`,
		s.now().Add(-guestCartLifetime).Unix())
	if err != nil {
		return 0, fmt.Errorf("forgetting abandoned guest carts: %w", err)
	}
	n, _ := res.RowsAffected()
	return int(n), nil
}

// sweepIfDue runs sweep in the background if it has not run for
// sweepEvery, as last (Unix ms) records, whichever request gets there
// first. After Close it starts none.
func (s *Store) sweepIfDue(last *atomic.Int64, what string, sweep func(context.Context) (int, error)) {
	now := s.now()
	was := last.Load()
	if now.Sub(time.UnixMilli(was)) < sweepEvery || !last.CompareAndSwap(was, now.UnixMilli()) {
		return
	}
	s.sweepMu.Lock()
	defer s.sweepMu.Unlock()
	if s.closed {
		return
	}
	s.sweeps.Add(1)
	go func() {
		defer s.sweeps.Done()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if _, err := sweep(ctx); err != nil {
			s.log().Error("shop: "+what, "err", err)
		}
	}()
}

// isClosed reports whether Close has run.
func (s *Store) isClosed() bool {
	s.sweepMu.Lock()
	defer s.sweepMu.Unlock()
	return s.closed
}

// Close ends the store's work in the background before its database is
// closed: it writes the idempotency deltas still waiting, starts no more
// sweeps, and waits for the ones running (each stops within 10 s). The
// database stays open; closing it is the caller's.
func (s *Store) Close(ctx context.Context) error {
	err := s.keys.Flush(ctx)
	s.sweepMu.Lock()
	s.closed = true
	s.sweepMu.Unlock()
	s.sweeps.Wait()
	return err
}
