package site

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"time"

	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site/idempotency"
)

// Idempotency keys are an extension of v0: a call may carry an
// Idempotency-Key header (a door without headers carries it in its own
// way), and then runs at most once per caller and key. A
// repeat of the same call (the same page, action, input, confirm and
// approval) gets the first call's delta again, marked with the
// Idempotent-Replayed: true header; a repeat with another call, or while
// the first still runs, is refused with 409. A call without a key works
// as before.
//
// The key is claimed after the rate limit (step 3) and before validation;
// a call that fails releases it, so that it can be retried with the same
// key; a call that succeeds stores its delta for Options.Idempotency.TTL.
// A store that claims on commit (idempotency.Optimistic) is not asked
// before a call to a public or session action: the action writes the key,
// and the site reads it only after a failure, to answer a repeat as
// above. A confirm action's key is read before, as with any store: its
// confirmation step may ask the person for an approval or use one, and a
// repeat must do neither.
// To be exactly once across a crash between the action's commit and the
// storing of its delta, an action commits the key inside its own
// transaction ([IdempotencyOf], and the store's own way of marking it
// committed): a retry then finds the key committed and is told so, and
// nothing runs twice.

type idemKey struct{}

// IdempotencyOf returns the key the call running with ctx holds, if it
// came with one.
func IdempotencyOf(ctx context.Context) (idempotency.Claim, bool) {
	c, ok := ctx.Value(idemKey{}).(idempotency.Claim)
	return c, ok
}

// idempotencyLease is how long a running call holds its key before
// another may take it over, on the view that the first died.
const idempotencyLease = time.Minute

// idempotency is the step after the rate limit: claim the call's key, or
// replay what the key's first call produced, or refuse. With an
// optimistic store (idempotency.Optimistic) the key of a call to a public
// or session action is only handed to the action here, and read after the
// call only if it failed (keyAfterFailure); a confirm action's is read
// here too, since its confirmation step may write.
func (c *call) idempotency() *Error {
	if c.idemKey == "" {
		return nil
	}
	if !protocol.ValidIdempotencyKey(c.idemKey) {
		return newError(protocol.CodeInvalidInput, "the Idempotency-Key must be 1 to 255 visible ASCII characters")
	}
	c.idem = &idempotency.Claim{Scope: c.callerKey(), Key: c.idemKey, Claim: newClaimID(), Fingerprint: c.fingerprint(),
		Expires: time.Now().Add(c.site.opts.Idempotency.TTL)}
	if !c.site.keysAfter || c.act.meta.Expose == protocol.ExposeConfirm {
		// A confirm action's call may write before its action (step 6
		// asks the person for an approval, or uses one), so a repeat must
		// be known before it: its key is read first, whatever the store.
		if e := c.claimKey(); e != nil || c.replay != nil {
			c.idem = nil // not this call's key
			return e
		}
	}
	c.r.Request = c.r.Request.WithContext(context.WithValue(c.r.Context(), idemKey{}, *c.idem))
	return nil
}

// claimKey asks the store for the call's key: claimed, it is this call's;
// else the answer is the key's first call's (c.replay) or a refusal.
func (c *call) claimKey() *Error {
	k := c.idem
	// Not cancelled with the request: a claim the store made must be known
	// to this call, so that it is settled, even when the client is gone.
	ctx := context.WithoutCancel(c.r.Context())
	rec, claimed, err := c.site.opts.Idempotency.Store.Claim(ctx, k.Scope, k.Key, k.Fingerprint, k.Claim, idempotencyLease, c.site.opts.Idempotency.TTL)
	if err != nil {
		return c.site.failure(ctx, "claiming an idempotency key", err)
	}
	switch {
	case claimed:
		return nil
	case rec.Fingerprint != k.Fingerprint:
		return newError(protocol.CodeUnavailable, "this Idempotency-Key was used for another call: use a new key for a new call")
	case rec.State == idempotency.Running:
		// Retry-After tells a client that asking again is worth it, as
		// it is not for a key used for another call.
		e := newError(protocol.CodeUnavailable, "a call with this Idempotency-Key is still running: wait for its answer, or repeat the call later")
		e.retryAfter = 1
		return e
	case rec.State == idempotency.Done:
		var d protocol.Delta
		if json.Unmarshal(rec.Delta, &d) == nil {
			// The answer is the stored bytes, the first call's own: decoded
			// and encoded again, its objects' members would come sorted.
			c.replay = &outcome{delta: d, redirect: d.Redirect, replayed: true, encoded: rec.Delta}
			return nil
		}
	}
	// Committed by the action, but its delta was lost with the process.
	c.replay = &outcome{delta: protocol.Delta{OK: true,
		Message: "This call was already completed; its first answer was lost. Read the page for its result."}, replayed: true}
	return nil
}

// keyAfterFailure is the optimistic store's read of a key, after the
// call failed with e: if the key was used before, the call was a repeat
// and gets the answer claimKey gives (the first call's delta, or a
// refusal); else e stands.
func (c *call) keyAfterFailure(e *Error) (*outcome, *Error) {
	if !c.site.keysAfter || c.idem == nil {
		return nil, e
	}
	if ke := c.claimKey(); ke != nil || c.replay != nil {
		c.idem = nil // the key is not this call's: nothing to settle
		return c.replay, ke
	}
	return nil, e
}

// fingerprint is what makes two calls under one key the same call.
func (c *call) fingerprint() string {
	var in any
	if c.input != nil {
		in = c.input.identity()
	}
	return idempotency.Fingerprint(c.site.opts.Idempotency.Secret, c.r.URL.Path, c.name, in, c.confirm, c.approvalID)
}

// settleIdempotency stores the delta of a call that succeeded, or frees
// the key of one that failed; a store's failure is logged at the level its
// kind deserves (a database away for a moment is a warning).
func (c *call) settleIdempotency(out *outcome, failed bool) {
	if err := c.settle(out, failed); err != nil && handlerError(err) == nil {
		c.site.logFailure(context.WithoutCancel(c.r.Context()), "settling an idempotency key", err, "failed", failed)
	}
}

// settle is settleIdempotency without the log: in the call's transaction
// (transact) a failure to store the answer fails the call, and is
// reported as the call's failure.
func (c *call) settle(out *outcome, failed bool) error {
	if c.idem == nil {
		return nil
	}
	c.settled = true
	ctx := context.WithoutCancel(c.r.Context())
	store := c.site.opts.Idempotency.Store
	if failed {
		if c.site.keysAfter {
			return nil // an optimistic store wrote nothing for a call that failed
		}
		return store.Release(ctx, c.idem.Scope, c.idem.Key, c.idem.Claim)
	}
	b, _ := json.Marshal(out.delta)
	out.encoded = b // the answer's body too: encoded once
	return store.Finish(ctx, c.idem.Scope, c.idem.Key, c.idem.Claim, b)
}

// newClaimID returns 192 random bits, base64url: what identifies the
// call that holds a key.
func newClaimID() string {
	b := make([]byte, 24)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// idempotencyKeyOf reads a request's key header. Several headers, or
// one that is empty, are refused as an invalid key: the client meant to
// send one, and its call must not run unprotected.
func idempotencyKeyOf(hr *http.Request) string {
	vs := hr.Header.Values(protocol.IdempotencyHeader)
	switch {
	case len(vs) == 0:
		return ""
	case len(vs) == 1 && vs[0] != "":
		return vs[0]
	}
	return "\x00" // not a valid key
}
