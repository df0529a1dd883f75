package shop

import (
	"context"
	"database/sql"
	"sync"
)

// maxStatements bounds the statements kept prepared. The store's queries
// are fixed strings, far fewer than this; a query past the bound simply
// runs unprepared.
const maxStatements = 512

// statements keeps queries prepared once, on SQLite, where compiling a
// query can cost more than running it (a cart read spent most of its time
// in SQLite's parser). PostgreSQL's driver, pgx, keeps its own cache of
// prepared statements per connection, so there the queries run as they
// are. The queries an Idempotency-Key adds to a call are kept (conn.prepared,
// Tx.prepared); the store's other queries are compiled per call for now.
type statements struct {
	mu sync.RWMutex
	m  map[string]*sql.Stmt
}

// stmt returns q prepared, preparing it on the pool when it is not yet:
// only outside a transaction, since SQLite's pool has one connection and
// a transaction holds it. It returns nil when q is not kept.
func (db *DB) stmt(ctx context.Context, q string, prepare bool) *sql.Stmt {
	if db.postgres {
		return nil
	}
	db.stmts.mu.RLock()
	s := db.stmts.m[q]
	n := len(db.stmts.m)
	db.stmts.mu.RUnlock()
	if s != nil || !prepare || n >= maxStatements {
		return s
	}
	s, err := db.DB.PrepareContext(context.WithoutCancel(ctx), q)
	if err != nil {
		return nil // the query runs unprepared, and reports its own error
	}
	db.stmts.mu.Lock()
	defer db.stmts.mu.Unlock()
	if prev := db.stmts.m[q]; prev != nil {
		s.Close()
		return prev
	}
	if db.stmts.m == nil {
		db.stmts.m = map[string]*sql.Stmt{}
	}
	db.stmts.m[q] = s
	return s
}

// prepareLater prepares, once the transaction has ended and the
// connection is free again, the queries that ran unprepared in it.
func (db *DB) prepareLater(ctx context.Context, queries []string) {
	for _, q := range queries {
		db.stmt(ctx, q, true)
	}
}
