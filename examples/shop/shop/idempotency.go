package shop

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/affordances-go/affordances/site"
	"github.com/affordances-go/affordances/site/idempotency"
)

// IdempotencyKeys keeps the site's Idempotency-Keys (idempotency.Store)
// in the store's database, so that every instance sees them.
//
// It claims optimistically (see idempotency.Optimistic): every action of
// the store writes in Store.tx, which writes the call's key in the same
// transaction as the action's changes and refuses to commit when another
// call wrote it first, so the key and the order commit together and a call
// cut after its commit is never run again. Before the action, the key is
// not even read: the site reads it only after a call that failed, to
// answer a repeat with the first call's delta. After the action, the delta
// is written behind the answer, a few milliseconds later and many at a
// time (deltaWriter), so that a key costs a call no commit of its own; a
// repeat that comes in between waits for it. On the pages whose calls run
// in one transaction (Store.Transact), the key is written once, with the
// delta, in that transaction: no writer, nothing to wait for.
type IdempotencyKeys struct {
	s      *Store
	writer deltaWriter
	swept  atomic.Int64 // when ForgetExpired last ran for the writer, Unix ms
}

// IdempotencyKeys returns the store's keys.
func (s *Store) IdempotencyKeys() *IdempotencyKeys { return s.keys }

// deltaGrace is how long after its commit a key's delta may still be on its
// way in the normal course (the writer batches every batchEvery).
const deltaGrace = 500 * time.Millisecond

// deltaCatchUp is how long a repeat that finds a key committed without
// its delta still waits for it, from when it first reads the key, even
// past the key's grace: after the database was away, the instance that
// ran the call writes the delta within about a second of its return (its
// writer tries at least every retryMost), however long ago the call
// committed. Past both, the repeat is told that the first answer was
// lost (the instance died with it).
const deltaCatchUp = retryMost + 2*batchEvery

// ClaimsOnCommit implements idempotency.Optimistic: the key is written
// by the action's transaction (commitKey).
func (k *IdempotencyKeys) ClaimsOnCommit() bool { return true }

// Claim implements idempotency.Store: it reads the key, and claims a
// new one lazily.
func (k *IdempotencyKeys) Claim(ctx context.Context, scope, key, fp, claim string, lease, ttl time.Duration) (idempotency.Record, bool, error) {
	catchUp := time.Now().Add(deltaCatchUp)
	for {
		r, found, err := k.read(ctx, scope, key)
		switch {
		case err != nil:
			return r, false, err
		case !found:
			return idempotency.Record{}, true, nil // Store.tx writes it
		case r.State != idempotency.Committed:
			return r, false, nil
		}
		// Committed: its delta is written behind its answer.
		if d, ok := k.writer.pending(scope, key, r.Claim); ok {
			r.State, r.Delta = idempotency.Done, d
			return r, false, nil
		}
		wait := time.Until(r.LeaseUntil)
		if late := time.Until(catchUp); late > wait {
			wait = late
		}
		if wait <= 0 {
			return r, false, nil // the first answer was lost
		}
		select {
		case <-ctx.Done():
			return r, false, ctx.Err()
		case <-time.After(min(wait, 20*time.Millisecond)):
		}
	}
}

// read returns a key's record, forgetting it when it is past its time.
func (k *IdempotencyKeys) read(ctx context.Context, scope, key string) (idempotency.Record, bool, error) {
	var r idempotency.Record
	var state, delta string
	var leaseUntil, expires int64
	const q = `SELECT fingerprint, state, claim, delta, lease_until, expires_at FROM idempotency_keys WHERE scope = ? AND key = ?`
	err := k.s.db.prepared(ctx, q).QueryRowContext(ctx, q, scope, key).Scan(&r.Fingerprint, &state, &r.Claim, &delta, &leaseUntil, &expires)
	if errors.Is(err, sql.ErrNoRows) {
		return r, false, nil
	}
	if err != nil {
		return r, false, fmt.Errorf("reading a key: %w", err)
	}
	if now := k.s.now().UnixMilli(); now > expires {
		if _, err := k.s.db.ExecContext(ctx, `DELETE FROM idempotency_keys WHERE scope = ? AND key = ? AND expires_at < ?`, scope, key, now); err != nil {
			return r, false, fmt.Errorf("forgetting a key: %w", err)
		}
		return r, false, nil
	}
	r.State, r.Delta, r.LeaseUntil = idempotency.State(state), []byte(delta), time.UnixMilli(leaseUntil)
	return r, true, nil
}

// Finish implements idempotency.Store: the delta is written behind
// the answer, with others.
//
// In a call's transaction (Store.Transact) the key's row is written
// here instead, once, with the delta and in that transaction: the
// action only noted the key (commitKey), so the answer commits with the
// action and no writer is needed.
func (k *IdempotencyKeys) Finish(ctx context.Context, scope, key, claim string, delta []byte) error {
	if tx := callTx(ctx, k.s.raw); tx != nil {
		c, ok := site.IdempotencyOf(ctx)
		if !ok || c.Scope != scope || c.Key != key || c.Claim != claim {
			return fmt.Errorf("storing a delta in a call's transaction: the key is not the call's")
		}
		tx.key = nil
		if err := writeKey(ctx, tx, c, idempotency.Done, delta); err != nil {
			return err
		}
		tx.wroteKey = true // Store.Transact sweeps once it committed, as the writer does after it wrote
		return nil
	}
	k.writer.add(k, scope, key, claim, delta)
	return nil
}

// Release implements idempotency.Store. A failed call's transaction
// rolled back with its key, so there is nothing to forget but a key an
// earlier version of the store wrote as running before its action.
func (k *IdempotencyKeys) Release(ctx context.Context, scope, key, claim string) error {
	_, err := k.s.db.ExecContext(ctx, `DELETE FROM idempotency_keys WHERE scope = ? AND key = ? AND claim = ? AND state = ?`,
		scope, key, claim, string(idempotency.Running))
	return err
}

// Flush writes the deltas still waiting; the store's main calls it before
// it exits.
func (k *IdempotencyKeys) Flush(ctx context.Context) error { return k.writer.flush(ctx, k) }

// errKeyLost: another call with the same key committed first.
var errKeyLost = site.Unavailable("another call with this Idempotency-Key ran first, and nothing was done by this one: repeat the call later to get that call's answer")

// commitKey writes the key of the call running with ctx, if it has one,
// inside the transaction that writes the action's changes: it is the
// key's claim. If another call holds the key, the transaction is rolled
// back; a key past its time is taken over. A call that commits several
// transactions writes it again with the same claim, which changes nothing.
//
// In the call's own transaction (Store.Transact) the key is written once,
// with the call's delta, when the site stores it (Finish), or as
// committed when the transaction ends without one (Store.Transact).
func commitKey(ctx context.Context, tx *Tx) error {
	c, ok := site.IdempotencyOf(ctx)
	if !ok {
		return nil
	}
	if callTx(ctx, tx.db) == tx {
		tx.key = &c
		return nil
	}
	return writeKey(ctx, tx, c, idempotency.Committed, nil)
}

// writeKey writes the key c in tx, in state, with delta; errKeyLost when
// another call holds it.
func writeKey(ctx context.Context, tx *Tx, c idempotency.Claim, state idempotency.State, delta []byte) error {
	now := time.Now()
	const q = `INSERT INTO idempotency_keys (scope, key, fingerprint, state, claim, delta, lease_until, expires_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (scope, key) DO UPDATE SET fingerprint = excluded.fingerprint, state = excluded.state,
			claim = excluded.claim, delta = excluded.delta, lease_until = excluded.lease_until, expires_at = excluded.expires_at
		WHERE idempotency_keys.claim = excluded.claim OR idempotency_keys.expires_at < ?`
	res, err := tx.prepared(ctx, q).ExecContext(ctx, q, c.Scope, c.Key, c.Fingerprint, string(state), c.Claim, string(delta),
		now.Add(deltaGrace).UnixMilli(), c.Expires.UnixMilli(), now.UnixMilli())
	if err != nil {
		return fmt.Errorf("writing the call's key: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return errKeyLost
	}
	return nil
}

// ForgetExpired deletes the keys past their time, oldest first, in
// batches of forgetBatch and at most forgetBatches of them, and returns
// how many it deleted. The delta writer runs it at most once every
// sweepEvery while keys are written, so the table holds about one
// Options.Idempotency.TTL of keys; an operator may run it too.
//
// On SQLite it reads the oldest rows by rowid (keys are written in time
// order, and all live as long), so that it needs no index on expires_at,
// which would cost every keyed call one more page at its commit; on
// PostgreSQL, where an index costs a call little, it uses one. (After
// Options.Idempotency.TTL is made shorter, SQLite's newer keys wait for
// the older ones to expire, at most the old TTL.)
func (k *IdempotencyKeys) ForgetExpired(ctx context.Context) (int, error) {
	q := `DELETE FROM idempotency_keys WHERE rowid IN (
		SELECT id FROM (SELECT rowid AS id, expires_at FROM idempotency_keys ORDER BY rowid LIMIT ?) AS oldest WHERE expires_at < ?)`
	if k.s.raw.postgres {
		// SKIP LOCKED: instances sweeping at once, or a call taking over
		// an expired key, never wait on each other nor deadlock.
		q = `DELETE FROM idempotency_keys WHERE (scope, key) IN (
			SELECT scope, key FROM idempotency_keys WHERE expires_at < ? LIMIT ? FOR UPDATE SKIP LOCKED)`
	}
	now, total := k.s.now().UnixMilli(), 0
	for range forgetBatches {
		args := []any{forgetBatch, now}
		if k.s.raw.postgres {
			args = []any{now, forgetBatch}
		}
		res, err := k.s.raw.DB.ExecContext(ctx, k.s.raw.rebind(q), args...)
		if err != nil {
			return total, fmt.Errorf("forgetting expired keys: %w", err)
		}
		n, _ := res.RowsAffected()
		total += int(n)
		if n == 0 {
			break
		}
	}
	return total, nil
}

// How ForgetExpired works through the table: 20,000 keys a minute at
// most, the writer's sweep, in statements short enough not to hold up
// the calls that write meanwhile.
const (
	forgetBatch   = 500
	forgetBatches = 40
	sweepEvery    = time.Minute
)

// sweepIfDue starts ForgetExpired, beside the writer (a repeat may be
// waiting for its deltas), if it has not run for sweepEvery.
func (k *IdempotencyKeys) sweepIfDue() {
	k.s.sweepIfDue(&k.swept, "forgetting expired idempotency keys", k.ForgetExpired)
}

// deltaWriter writes finished calls' deltas in batches, shortly after
// their answers: one transaction for all that finished in the meantime.
// Until a delta is written, Claim reads it from here on this instance,
// and waits for it on the others.
type deltaWriter struct {
	mu       sync.Mutex
	waiting  map[[2]string]pendingDelta
	running  bool
	patience time.Duration // how long to keep trying while the database is away; deltaPatience when 0
}

type pendingDelta struct {
	claim string
	delta []byte
}

// batchEvery is how long the writer gathers deltas before it writes them.
const batchEvery = 20 * time.Millisecond

func (w *deltaWriter) add(k *IdempotencyKeys, scope, key, claim string, delta []byte) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.waiting == nil {
		w.waiting = map[[2]string]pendingDelta{}
	}
	w.waiting[[2]string{scope, key}] = pendingDelta{claim, delta}
	if !w.running {
		w.running = true
		go w.run(k)
	}
}

func (w *deltaWriter) pending(scope, key, claim string) ([]byte, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	p, ok := w.waiting[[2]string{scope, key}]
	if !ok || p.claim != claim {
		return nil, false
	}
	return p.delta, true
}

// run writes batches until none is waiting, then ends. While the
// database is away (a restart, a failover) it keeps trying, waiting twice
// as long after each failure (retryFirst up to retryMost) and logging
// each as a warning, for the writer's patience (or until the store is
// closed, whose Close tried once more, or its database is); then it
// drops what waits, an error: those keys stay committed, and a repeat is
// told that the first answer was lost, which is true. No call commits
// while the database is away, so what waits does not grow meanwhile.
func (w *deltaWriter) run(k *IdempotencyKeys) {
	var failingSince time.Time
	wait := retryFirst
	for try := 1; ; {
		time.Sleep(batchEvery)
		if err := w.flush(context.Background(), k); err != nil {
			if failingSince.IsZero() {
				failingSince = time.Now()
			}
			why := ""
			switch {
			case k.s.isClosed():
				why = "the store is closed"
			case k.s.raw.isClosed():
				why = "the database is closed"
			case time.Since(failingSince) >= w.patienceOrDefault():
				why = "failed for too long"
			}
			if why == "" {
				k.s.log().Warn("shop: writing the deltas of idempotent calls; trying again", "err", err, "try", try, "in", wait)
				time.Sleep(wait)
				wait, try = min(2*wait, retryMost), try+1
			} else {
				w.mu.Lock()
				n := len(w.waiting)
				clear(w.waiting)
				w.mu.Unlock()
				k.s.log().Error("shop: writing the deltas of idempotent calls: "+why+"; dropped (their keys stay committed, and a repeat is told its first answer was lost)",
					"err", err, "deltas", n, "try", try, "failing for", time.Since(failingSince).Round(time.Millisecond))
				failingSince, wait, try = time.Time{}, retryFirst, 1
			}
		} else {
			failingSince, wait, try = time.Time{}, retryFirst, 1
			k.sweepIfDue()
		}
		w.mu.Lock()
		if len(w.waiting) == 0 {
			w.running = false
			w.mu.Unlock()
			return
		}
		w.mu.Unlock()
	}
}

// How the writer waits for a database that is away: from retryFirst,
// twice as long after each failure up to retryMost, for deltaPatience
// (a PostgreSQL restart takes a second or two, a failover tens).
const (
	retryFirst    = 100 * time.Millisecond
	retryMost     = time.Second
	deltaPatience = time.Minute
)

// patienceOrDefault is how long the writer keeps trying: its patience,
// set by tests, or deltaPatience.
func (w *deltaWriter) patienceOrDefault() time.Duration {
	if w.patience > 0 {
		return w.patience
	}
	return deltaPatience
}

// flush writes every delta waiting: one statement for up to
// flushChunk of them, a round trip to the database instead of one per
// delta (on PostgreSQL, where each is a round trip, that is most of a
// key's cost).
func (w *deltaWriter) flush(ctx context.Context, k *IdempotencyKeys) error {
	w.mu.Lock()
	batch := make([]flushed, 0, len(w.waiting))
	for id, p := range w.waiting {
		batch = append(batch, flushed{id, p})
	}
	w.mu.Unlock()
	for chunk := range slices.Chunk(batch, flushChunk) {
		if err := writeDeltas(ctx, k.s.raw, chunk); err != nil {
			return err
		}
		w.mu.Lock()
		for _, f := range chunk {
			if cur, ok := w.waiting[f.id]; ok && cur.claim == f.claim {
				delete(w.waiting, f.id)
			}
		}
		w.mu.Unlock()
	}
	return nil
}

// flushed is a delta on its way, with its key.
type flushed struct {
	id [2]string
	pendingDelta
}

// flushChunk is how many deltas one statement writes at most.
const flushChunk = 64

// writeDeltas stores the deltas of chunk, each on its key's row if the
// key is still its call's, in one statement that SQLite and PostgreSQL
// both read (a VALUES list names its columns column1, column2, …).
func writeDeltas(ctx context.Context, db *DB, chunk []flushed) error {
	var q strings.Builder
	q.WriteString(`UPDATE idempotency_keys SET state = ?, delta = v.column4 FROM (VALUES `)
	args := make([]any, 0, 1+4*len(chunk))
	args = append(args, string(idempotency.Done))
	for i, f := range chunk {
		if i > 0 {
			q.WriteString(", ")
		}
		q.WriteString("(?, ?, ?, ?)")
		args = append(args, f.id[0], f.id[1], f.claim, string(f.delta))
	}
	q.WriteString(`) AS v WHERE idempotency_keys.scope = v.column1 AND idempotency_keys.key = v.column2 AND idempotency_keys.claim = v.column3`)
	// Not kept prepared: its text changes with the chunk's length.
	_, err := db.DB.ExecContext(ctx, db.rebind(q.String()), args...)
	return err
}
