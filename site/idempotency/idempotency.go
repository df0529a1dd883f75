// Package idempotency holds what a store of Idempotency-Keys implements,
// an extension of v0: a call with a key runs at most once per caller and
// key, and a repeat gets the first call's delta again. The site claims,
// replays and settles keys in its pipeline (package site:
// Options.Idempotency.Store, site.IdempotencyOf); this package is the [Store]
// it does so with, and [Memory], the store of one instance and of tests.
package idempotency

import (
	"context"
	"errors"
	"sync"
	"time"
)

// State is where a key stands.
type State string

const (
	// Running: a call claimed the key and has not finished.
	Running State = "running"
	// Committed: the call's action committed, with the key, inside its
	// own transaction; its delta was not stored (the process died first).
	Committed State = "committed"
	// Done: the call succeeded and its delta is stored.
	Done State = "done"
)

// Record is what a store keeps of one key.
type Record struct {
	// Fingerprint is the call's keyed hash (see [Fingerprint]).
	Fingerprint string
	State       State
	// Claim identifies the call that holds a running key; LeaseUntil is
	// when another call may take the key over (the first died).
	Claim      string
	LeaseUntil time.Time
	// Delta is the stored delta, as JSON, once done.
	Delta []byte
}

// Store keeps keys. A site with several instances shares one
// (the demo store keeps them in its database, so that an action commits
// its key in its own transaction). The default keeps them in memory.
//
// A store whose actions all commit their key in their own transaction may
// claim lazily: Claim then only reads, returns claimed true for a key it
// does not hold, and the action's transaction writes the key (from
// site.IdempotencyOf) with its changes, refusing to commit when another call
// wrote it first. Two concurrent repeats then both start, and only one
// commits; the other's changes roll back and it answers 409.
type Store interface {
	// Claim takes key, within scope, for a call with fingerprint: when the
	// key is new, or running with a lease that ended, it records it as
	// running under claim until now+lease, expiring at now+ttl, and
	// returns claimed true. Otherwise it returns the key's record.
	Claim(ctx context.Context, scope, key, fingerprint, claim string, lease, ttl time.Duration) (Record, bool, error)
	// Finish stores the delta of the call that holds claim, as done.
	Finish(ctx context.Context, scope, key, claim string, delta []byte) error
	// Release forgets the key of a call that failed, if claim still holds
	// it and it is running.
	Release(ctx context.Context, scope, key, claim string) error
}

// Optimistic is implemented by a Store that claims lazily and needs no
// read before a call either. Its actions commit the key in their own
// transaction, and that write refuses a key another call holds, so a
// call that succeeded is known to have held its key. The site then asks
// Claim only after a call failed (its guard refused, its action lost the
// key to another call, ...) to tell a repeat, answered with the first
// call's delta, from a failure of its own; and it never calls Release,
// since nothing was written before the action.
//
// A call that succeeds costs such a store one write in the action's
// transaction and the stored delta, and no read. A repeat runs up to its
// action before it is recognised, so the action must write nothing
// outside its transaction before it writes the key. Calls to confirm
// actions are the exception: their confirmation step may write (ask the
// person for an approval, or use one), so the site reads their key
// before the call, as with any store.
type Optimistic interface {
	Store
	// ClaimsOnCommit reports whether the store works this way; a wrapper
	// of another store answers what the store it wraps answers.
	ClaimsOnCommit() bool
}

// Claim is the key a running call holds, for an action that
// commits it in its own transaction.
type Claim struct {
	Scope, Key, Claim string
	// Fingerprint is the call's, and Expires when the key may be
	// forgotten: what a store that claims lazily writes with the key.
	Fingerprint string
	Expires     time.Time
}

// Memory is an Store in memory, for one instance and
// for tests. Keys are forgotten when their time is up, oldest first, at a
// constant cost per call; past MaxKeys the oldest go even before.
type Memory struct {
	// MaxKeys bounds the keys kept, so that memory stays bounded whatever
	// callers send. Default 100,000.
	MaxKeys int

	mu    sync.Mutex
	m     map[[2]string]memKey
	order []memEntry // the keys in the order they were claimed
	head  int        // order[head:] are still to be forgotten
	seq   uint64
}

type memKey struct {
	Record
	expires time.Time
	seq     uint64 // which claim of the key this is, to match order
}

type memEntry struct {
	k   [2]string
	seq uint64
}

// NewMemory returns an empty store.
func NewMemory() *Memory {
	return &Memory{m: map[[2]string]memKey{}}
}

// forget drops the keys whose time is up, and the oldest past MaxKeys.
func (s *Memory) forget(now time.Time) {
	limit := s.MaxKeys
	if limit <= 0 {
		limit = 100_000
	}
	for s.head < len(s.order) {
		e := s.order[s.head]
		r, ok := s.m[e.k]
		current := ok && r.seq == e.seq
		if current && now.Before(r.expires) && len(s.m) < limit {
			break
		}
		if current {
			delete(s.m, e.k)
		}
		s.order[s.head] = memEntry{}
		s.head++
	}
	if s.head > 1024 && s.head > len(s.order)/2 {
		s.order = append(s.order[:0], s.order[s.head:]...)
		s.head = 0
	}
}

// Claim implements Store.
func (s *Memory) Claim(_ context.Context, scope, key, fp, claim string, lease, ttl time.Duration) (Record, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = map[[2]string]memKey{}
	}
	now := time.Now()
	s.forget(now)
	k := [2]string{scope, key}
	if r, ok := s.m[k]; ok && now.Before(r.expires) && !(r.State == Running && now.After(r.LeaseUntil) && r.Fingerprint == fp) {
		return r.Record, false, nil
	}
	s.seq++
	s.m[k] = memKey{Record{Fingerprint: fp, State: Running, Claim: claim, LeaseUntil: now.Add(lease)}, now.Add(ttl), s.seq}
	s.order = append(s.order, memEntry{k, s.seq})
	return Record{}, true, nil
}

// Finish implements Store.
func (s *Memory) Finish(_ context.Context, scope, key, claim string, delta []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := [2]string{scope, key}
	r, ok := s.m[k]
	if !ok || r.Claim != claim {
		return errors.New("idempotency: the key is no longer this call's")
	}
	r.State, r.Delta = Done, delta
	s.m[k] = r
	return nil
}

// Release implements Store.
func (s *Memory) Release(_ context.Context, scope, key, claim string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := [2]string{scope, key}
	if r, ok := s.m[k]; ok && r.Claim == claim && r.State == Running {
		delete(s.m, k)
	}
	return nil
}
