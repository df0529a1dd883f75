package shop

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/affordances-go/affordances/site"
)

// IdempotencyKeys keeps the site's Idempotency-Keys (site.IdempotencyStore)
// in the store's database, so that every instance sees them and an action
// commits its call's key in its own transaction: the key and the order
// commit together, and a call cut after its commit is never run again.
type IdempotencyKeys struct{ s *Store }

// IdempotencyKeys returns the store's keys.
func (s *Store) IdempotencyKeys() *IdempotencyKeys { return &IdempotencyKeys{s} }

// Claim implements site.IdempotencyStore.
func (k *IdempotencyKeys) Claim(ctx context.Context, scope, key, fp, claim string, lease, ttl time.Duration) (site.IdempotencyRecord, bool, error) {
	now := k.s.now()
	for range 2 {
		res, err := k.s.db.ExecContext(ctx, `INSERT INTO idempotency_keys (scope, key, fingerprint, state, claim, lease_until, expires_at)
			VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (scope, key) DO NOTHING`,
			scope, key, fp, string(site.KeyRunning), claim, now.Add(lease).UnixMilli(), now.Add(ttl).UnixMilli())
		if err != nil {
			return site.IdempotencyRecord{}, false, fmt.Errorf("claiming a key: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 1 {
			return site.IdempotencyRecord{}, true, nil
		}
		var r site.IdempotencyRecord
		var state, delta string
		var leaseUntil, expires int64
		err = k.s.db.QueryRowContext(ctx, `SELECT fingerprint, state, claim, delta, lease_until, expires_at FROM idempotency_keys WHERE scope = ? AND key = ?`,
			scope, key).Scan(&r.Fingerprint, &state, &r.Claim, &delta, &leaseUntil, &expires)
		if errors.Is(err, sql.ErrNoRows) {
			continue // released meanwhile: claim again
		}
		if err != nil {
			return site.IdempotencyRecord{}, false, fmt.Errorf("reading a key: %w", err)
		}
		r.State, r.Delta, r.LeaseUntil = site.IdempotencyState(state), []byte(delta), time.UnixMilli(leaseUntil)
		if now.UnixMilli() > expires {
			// Past its time: forget it, and claim it afresh.
			if _, err := k.s.db.ExecContext(ctx, `DELETE FROM idempotency_keys WHERE scope = ? AND key = ? AND expires_at < ?`, scope, key, now.UnixMilli()); err != nil {
				return site.IdempotencyRecord{}, false, err
			}
			continue
		}
		if r.State == site.KeyRunning && r.Fingerprint == fp && now.After(r.LeaseUntil) {
			// The call that held it died before its action committed:
			// take it over, unless another request just did.
			res, err := k.s.db.ExecContext(ctx, `UPDATE idempotency_keys SET claim = ?, lease_until = ? WHERE scope = ? AND key = ? AND claim = ? AND state = ?`,
				claim, now.Add(lease).UnixMilli(), scope, key, r.Claim, string(site.KeyRunning))
			if err != nil {
				return site.IdempotencyRecord{}, false, err
			}
			if n, _ := res.RowsAffected(); n == 1 {
				return site.IdempotencyRecord{}, true, nil
			}
		}
		return r, false, nil
	}
	return site.IdempotencyRecord{}, false, errors.New("claiming a key: it keeps changing")
}

// Finish implements site.IdempotencyStore.
func (k *IdempotencyKeys) Finish(ctx context.Context, scope, key, claim string, delta []byte) error {
	_, err := k.s.db.ExecContext(ctx, `UPDATE idempotency_keys SET state = ?, delta = ? WHERE scope = ? AND key = ? AND claim = ?`,
		string(site.KeyDone), string(delta), scope, key, claim)
	return err
}

// Release implements site.IdempotencyStore.
func (k *IdempotencyKeys) Release(ctx context.Context, scope, key, claim string) error {
	_, err := k.s.db.ExecContext(ctx, `DELETE FROM idempotency_keys WHERE scope = ? AND key = ? AND claim = ? AND state = ?`,
		scope, key, claim, string(site.KeyRunning))
	return err
}

// errKeyLost: the call's key was taken over by a retry while it ran.
var errKeyLost = site.Unavailable("a retry with this Idempotency-Key took it over while this call ran; nothing was done by this one")

// commitKey marks the key of the call running with ctx, if it has one, as
// committed inside the transaction that writes the action's changes. If
// the call no longer holds it, the transaction is rolled back.
func commitKey(ctx context.Context, tx *Tx) error {
	c, ok := site.IdempotencyOf(ctx)
	if !ok {
		return nil
	}
	res, err := tx.ExecContext(ctx, `UPDATE idempotency_keys SET state = ? WHERE scope = ? AND key = ? AND claim = ? AND state IN (?, ?)`,
		string(site.KeyCommitted), c.Scope, c.Key, c.Claim, string(site.KeyRunning), string(site.KeyCommitted))
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return errKeyLost
	}
	return nil
}
