package site

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"sync"
	"time"

	"github.com/affordances-go/affordances/protocol"
)

// Idempotency keys are an extension of v0: a call may carry an
// Idempotency-Key header (an MCP tool call, the same key in its _meta, see
// package site/mcp), and then runs at most once per caller and key. A
// repeat of the same call (the same page, action, input, confirm and
// approval) gets the first call's delta again, marked with the
// Idempotent-Replayed: true header; a repeat with another call, or while
// the first still runs, is refused with 409. A call without a key works
// as before.
//
// The key is claimed after the rate limit (step 3) and before validation;
// a call that fails releases it, so that it can be retried with the same
// key; a call that succeeds stores its delta for Options.IdempotencyTTL.
// To be exactly once across a crash between the action's commit and the
// storing of its delta, an action commits the key inside its own
// transaction ([IdempotencyOf], and the store's own way of marking it
// committed): a retry then finds the key committed and is told so, and
// nothing runs twice.

// IdempotencyHeader is the header that carries a call's key.
const IdempotencyHeader = "Idempotency-Key"

// ReplayedHeader is set to "true" on the answer of a call that replays a
// key's stored outcome.
const ReplayedHeader = "Idempotent-Replayed"

// IdempotencyState is where a key stands.
type IdempotencyState string

const (
	// KeyRunning: a call claimed the key and has not finished.
	KeyRunning IdempotencyState = "running"
	// KeyCommitted: the call's action committed, with the key, inside its
	// own transaction; its delta was not stored (the process died first).
	KeyCommitted IdempotencyState = "committed"
	// KeyDone: the call succeeded and its delta is stored.
	KeyDone IdempotencyState = "done"
)

// IdempotencyRecord is what a store keeps of one key.
type IdempotencyRecord struct {
	// Fingerprint is the hex SHA-256 of the call the key was used for.
	Fingerprint string
	State       IdempotencyState
	// Claim identifies the call that holds a running key; LeaseUntil is
	// when another call may take the key over (the first died).
	Claim      string
	LeaseUntil time.Time
	// Delta is the stored delta, as JSON, once done.
	Delta []byte
}

// IdempotencyStore keeps keys. A site with several instances shares one
// (the demo store keeps them in its database, so that an action commits
// its key in its own transaction). The default keeps them in memory.
//
// A store whose actions all commit their key in their own transaction may
// claim lazily: Claim then only reads, returns claimed true for a key it
// does not hold, and the action's transaction writes the key (from
// [IdempotencyOf]) with its changes, refusing to commit when another call
// wrote it first. Two concurrent repeats then both start, and only one
// commits; the other's changes roll back and it answers 409.
type IdempotencyStore interface {
	// Claim takes key, within scope, for a call with fingerprint: when the
	// key is new, or running with a lease that ended, it records it as
	// running under claim until now+lease, expiring at now+ttl, and
	// returns claimed true. Otherwise it returns the key's record.
	Claim(ctx context.Context, scope, key, fingerprint, claim string, lease, ttl time.Duration) (IdempotencyRecord, bool, error)
	// Finish stores the delta of the call that holds claim, as done.
	Finish(ctx context.Context, scope, key, claim string, delta []byte) error
	// Release forgets the key of a call that failed, if claim still holds
	// it and it is running.
	Release(ctx context.Context, scope, key, claim string) error
}

// IdempotencyClaim is the key a running call holds, for an action that
// commits it in its own transaction.
type IdempotencyClaim struct {
	Scope, Key, Claim string
	// Fingerprint is the call's, and Expires when the key may be
	// forgotten: what a store that claims lazily writes with the key.
	Fingerprint string
	Expires     time.Time
}

type idemKey struct{}

// IdempotencyOf returns the key the call running with ctx holds, if it
// came with one.
func IdempotencyOf(ctx context.Context) (IdempotencyClaim, bool) {
	c, ok := ctx.Value(idemKey{}).(IdempotencyClaim)
	return c, ok
}

// idempotencyLease is how long a running call holds its key before
// another may take it over, on the view that the first died.
const idempotencyLease = time.Minute

// validKey reports whether a key is 1 to 255 visible ASCII characters.
func validKey(k string) bool {
	if k == "" || len(k) > 255 {
		return false
	}
	for i := 0; i < len(k); i++ {
		if k[i] < 0x21 || k[i] > 0x7e {
			return false
		}
	}
	return true
}

// idempotency is the step after the rate limit: claim the call's key, or
// replay what the key's first call produced, or refuse.
func (c *call) idempotency() *Error {
	if c.idemKey == "" {
		return nil
	}
	if !validKey(c.idemKey) {
		return newError(protocol.CodeInvalidInput, "the Idempotency-Key must be 1 to 255 visible ASCII characters")
	}
	scope := c.callerKey()
	claim := newSecretID()
	fp := c.fingerprint()
	store := c.site.opts.Idempotency
	// Not cancelled with the request: a claim the store made must be known
	// to this call, so that it is settled, even when the client is gone.
	rec, claimed, err := store.Claim(context.WithoutCancel(c.r.Context()), scope, c.idemKey, fp, claim, idempotencyLease, c.site.opts.IdempotencyTTL)
	if err != nil {
		c.site.opts.Logger.ErrorContext(c.r.Context(), "affordances: claiming an idempotency key", "err", err)
		return newInternalError()
	}
	switch {
	case claimed:
		c.idem = &IdempotencyClaim{Scope: scope, Key: c.idemKey, Claim: claim, Fingerprint: fp, Expires: time.Now().Add(c.site.opts.IdempotencyTTL)}
		c.r.Request = c.r.Request.WithContext(context.WithValue(c.r.Context(), idemKey{}, *c.idem))
		return nil
	case rec.Fingerprint != fp:
		return newError(protocol.CodeUnavailable, "this Idempotency-Key was used for another call: use a new key for a new call")
	case rec.State == KeyRunning:
		return newError(protocol.CodeUnavailable, "a call with this Idempotency-Key is still running: wait for its answer, or repeat the call later")
	case rec.State == KeyDone:
		var d protocol.Delta
		if json.Unmarshal(rec.Delta, &d) == nil {
			c.replay = &outcome{delta: d, redirect: d.Redirect, replayed: true}
			return nil
		}
	}
	// Committed by the action, but its delta was lost with the process.
	c.replay = &outcome{delta: protocol.Delta{OK: true,
		Message: "This call was already completed; its first answer was lost. Read the page for its result."}, replayed: true}
	return nil
}

// fingerprint is what makes two calls the same call: page, action,
// input, confirm and approval.
func (c *call) fingerprint() string {
	in := any(c.inputValue)
	if c.form != nil {
		in = c.form
	} else if len(c.inputRaw) > 0 && c.inputValue == nil {
		in = json.RawMessage(c.inputRaw)
	}
	b, _ := json.Marshal(struct {
		Page     string `json:"p"`
		Action   string `json:"a"`
		Input    any    `json:"i"`
		Confirm  bool   `json:"c"`
		Approval string `json:"ap"`
	}{c.r.URL.Path, c.name, in, c.confirm, c.approvalID})
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// settleIdempotency stores the delta of a call that succeeded, or frees
// the key of one that failed.
func (c *call) settleIdempotency(out *outcome, failed bool) {
	if c.idem == nil {
		return
	}
	ctx := context.WithoutCancel(c.r.Context())
	store := c.site.opts.Idempotency
	var err error
	if failed {
		err = store.Release(ctx, c.idem.Scope, c.idem.Key, c.idem.Claim)
	} else {
		b, _ := json.Marshal(out.delta)
		out.encoded = b // the answer's body too: encoded once
		err = store.Finish(ctx, c.idem.Scope, c.idem.Key, c.idem.Claim, b)
	}
	if err != nil {
		c.site.opts.Logger.ErrorContext(ctx, "affordances: settling an idempotency key", "failed", failed, "err", err)
	}
}

// idempotencyKeyOf reads a request's key header; several are refused as
// an invalid key.
func idempotencyKeyOf(hr *http.Request) string {
	vs := hr.Header.Values(IdempotencyHeader)
	switch len(vs) {
	case 0:
		return ""
	case 1:
		return vs[0]
	}
	return "\x00" // several: not a valid key
}

// MemoryIdempotency is an IdempotencyStore in memory, for one instance and
// for tests. Keys are forgotten when their time is up, oldest first, at a
// constant cost per call; past MaxKeys the oldest go even before.
type MemoryIdempotency struct {
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
	IdempotencyRecord
	expires time.Time
	seq     uint64 // which claim of the key this is, to match order
}

type memEntry struct {
	k   [2]string
	seq uint64
}

// NewMemoryIdempotency returns an empty store.
func NewMemoryIdempotency() *MemoryIdempotency {
	return &MemoryIdempotency{m: map[[2]string]memKey{}}
}

// forget drops the keys whose time is up, and the oldest past MaxKeys.
func (s *MemoryIdempotency) forget(now time.Time) {
	max := s.MaxKeys
	if max <= 0 {
		max = 100_000
	}
	for s.head < len(s.order) {
		e := s.order[s.head]
		r, ok := s.m[e.k]
		current := ok && r.seq == e.seq
		if current && now.Before(r.expires) && len(s.m) < max {
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

// Claim implements IdempotencyStore.
func (s *MemoryIdempotency) Claim(_ context.Context, scope, key, fp, claim string, lease, ttl time.Duration) (IdempotencyRecord, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = map[[2]string]memKey{}
	}
	now := time.Now()
	s.forget(now)
	k := [2]string{scope, key}
	if r, ok := s.m[k]; ok && now.Before(r.expires) && !(r.State == KeyRunning && now.After(r.LeaseUntil) && r.Fingerprint == fp) {
		return r.IdempotencyRecord, false, nil
	}
	s.seq++
	s.m[k] = memKey{IdempotencyRecord{Fingerprint: fp, State: KeyRunning, Claim: claim, LeaseUntil: now.Add(lease)}, now.Add(ttl), s.seq}
	s.order = append(s.order, memEntry{k, s.seq})
	return IdempotencyRecord{}, true, nil
}

// Finish implements IdempotencyStore.
func (s *MemoryIdempotency) Finish(_ context.Context, scope, key, claim string, delta []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := [2]string{scope, key}
	r, ok := s.m[k]
	if !ok || r.Claim != claim {
		return errors.New("site: the idempotency key is no longer this call's")
	}
	r.State, r.Delta = KeyDone, delta
	s.m[k] = r
	return nil
}

// Release implements IdempotencyStore.
func (s *MemoryIdempotency) Release(_ context.Context, scope, key, claim string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := [2]string{scope, key}
	if r, ok := s.m[k]; ok && r.Claim == claim && r.State == KeyRunning {
		delete(s.m, k)
	}
	return nil
}
