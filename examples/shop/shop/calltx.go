package shop

import (
	"context"

	"github.com/affordances-go/affordances/site/idempotency"
)

// A call's transaction. Store.Transact is the site's PageOptions.Transact
// for the store's product and cart pages: a call's guard, its action and
// the reads of its delta run in one transaction, found in the request's
// context, and a keyed call's key is written once, with its answer
// (writeKey). Every query of the store (conn) and every transaction it
// would begin (tx, txWithoutKey) runs in it while it is open, so that
// every read after the action sees its writes and nothing of the call
// waits for a second connection: SQLite's pool has one, which the
// transaction holds. A page may take Transact only if all its loaders and
// actions query through the store's conn; the token kit's queries, say,
// do not (they go to the pool), which keeps the account page out.

// callTxKey is the context key of a call's transaction.
type callTxKey struct{}

// Transact runs fn in one transaction of the store's, carried by the
// context fn is given, and commits it when fn returns nil, else rolls it
// back. The call's key, if its action wrote and the site stored no
// answer (a site whose key store is not the store's), commits as
// committed, as any transaction of the store's writes it.
func (s *Store) Transact(ctx context.Context, fn func(ctx context.Context) error) error {
	// The caller may give up while the transaction begins (waiting for a
	// connection, a database that does not answer), not after: database/sql
	// would answer a cancellation by rolling the transaction back under
	// the call's feet. A caller that hangs up later stops the call at its
	// next query, whose error rolls it back here.
	bctx, unhook := ctx, func() bool { return true }
	if ctx.Done() != nil {
		// Only a context that can end needs the guard: SQLite's driver
		// watches a cancellable one from a goroutine of its own at BEGIN
		// and again at COMMIT, which costs a call that cannot be
		// cancelled (an in-process caller's) for nothing.
		var stop context.CancelFunc
		bctx, stop = context.WithCancel(context.WithoutCancel(ctx))
		defer stop()
		unhook = context.AfterFunc(ctx, stop)
	}
	wrote := false
	err := s.txWithoutKey(bctx, func(tx *Tx) error {
		if !unhook() {
			return ctx.Err() // gone while it began: the transaction is being rolled back
		}
		cctx := context.WithValue(ctx, callTxKey{}, tx)
		if err := fn(cctx); err != nil {
			return err
		}
		if tx.key != nil {
			// The action wrote and the site stored no delta: the key
			// commits with the writes, as in any transaction of tx.
			if err := writeKey(cctx, tx, *tx.key, idempotency.Committed, nil); err != nil {
				return err
			}
			tx.wroteKey = true
		}
		wrote = tx.wroteKey
		return nil
	})
	if err == nil && wrote {
		// Expired keys go as the writer has them go: after a write that
		// succeeded, at most once every sweepEvery.
		s.keys.sweepIfDue()
	}
	return err
}

// callTx is the open call's transaction ctx carries on db, or nil.
func callTx(ctx context.Context, db *DB) *Tx {
	t, _ := ctx.Value(callTxKey{}).(*Tx)
	if t == nil || t.db != db || t.ended.Load() {
		return nil
	}
	return t
}
