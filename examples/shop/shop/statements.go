package shop

import (
	"context"
	"database/sql"
	"strings"
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
// are. Every query the store runs through conn or Tx is kept, but for the
// schema's (see preparable).
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

// preparable reports whether q is worth keeping prepared: one statement
// that reads or writes rows, not the schema's many statements or a change
// of a table.
func preparable(q string) bool {
	t := strings.TrimSpace(q)
	if strings.Contains(strings.TrimSuffix(t, ";"), ";") {
		return false
	}
	verb, _, _ := strings.Cut(t, " ")
	switch strings.ToUpper(verb) {
	case "SELECT", "INSERT", "UPDATE", "DELETE", "WITH":
		return true
	}
	return false
}
