package shop

import (
	"context"
	"database/sql"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/affordances-go/affordances/site/idempotency"
)

// DB is the store's database: SQLite (the default, embedded) or
// PostgreSQL (for several instances), behind one set of queries. Queries
// are written with ? placeholders; on PostgreSQL they are rewritten to $n.
type DB struct {
	*sql.DB
	postgres bool
	stmts    statements  // queries kept prepared on SQLite (statements.go)
	closed   atomic.Bool // Close ran
}

// Postgres reports whether the database is PostgreSQL.
func (db *DB) Postgres() bool { return db.postgres }

// Close closes the database. A store's work in the background that still
// waits for it (the idempotency deltas) then gives up at once instead of
// retrying as it does while a database is away; close the Store first
// (Store.Close) to have that work finished.
func (db *DB) Close() error {
	db.closed.Store(true)
	return db.DB.Close()
}

// isClosed reports whether Close has run.
func (db *DB) isClosed() bool { return db.closed.Load() }

// querier is what a query needs: the database or a transaction.
type querier interface {
	ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row
}

// conn runs the store's queries on the database.
type conn struct{ db *DB }

func (c conn) ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error) {
	if t := callTx(ctx, c.db); t != nil {
		return t.ExecContext(ctx, q, args...)
	}
	if s := c.db.stmt(ctx, q, preparable(q)); s != nil {
		return s.ExecContext(ctx, args...)
	}
	return c.db.DB.ExecContext(ctx, c.db.rebind(q), args...)
}
func (c conn) QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	if t := callTx(ctx, c.db); t != nil {
		return t.QueryContext(ctx, q, args...)
	}
	if s := c.db.stmt(ctx, q, preparable(q)); s != nil {
		return s.QueryContext(ctx, args...)
	}
	return c.db.DB.QueryContext(ctx, c.db.rebind(q), args...)
}
func (c conn) QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row {
	if t := callTx(ctx, c.db); t != nil {
		return t.QueryRowContext(ctx, q, args...)
	}
	if s := c.db.stmt(ctx, q, preparable(q)); s != nil {
		return s.QueryRowContext(ctx, args...)
	}
	return c.db.DB.QueryRowContext(ctx, c.db.rebind(q), args...)
}

// prepared is the database with q kept prepared (on SQLite). Every query
// of conn is; it is kept for the callers that say so.
func (c conn) prepared(ctx context.Context, q string) querier {
	if t := callTx(ctx, c.db); t != nil {
		return t.prepared(ctx, q)
	}
	if s := c.db.stmt(ctx, q, true); s != nil {
		return stmtQuerier{s}
	}
	return c
}

// Tx is a transaction of the store, with the same queries.
type Tx struct {
	tx     *sql.Tx
	db     *DB
	misses []string    // queries to prepare once the transaction has ended
	ended  atomic.Bool // committed or rolled back: a context that still carries it uses the pool
	// key is the call's Idempotency-Key that the action's writes claimed,
	// still to be written (a call's transaction, Store.Transact).
	key *idempotency.Claim
	// wroteKey: a key was written in this call's transaction.
	wroteKey bool
	// bound are the first statements bound to the transaction (stmt),
	// in the Tx itself: no allocation of their own.
	bound  [16]boundStmt
	nbound int
}

// prepared is the transaction with q kept prepared (on SQLite): prepared
// on the pool once the transaction has ended, since SQLite's pool has one
// connection and the transaction holds it.
func (t *Tx) prepared(ctx context.Context, q string) querier {
	if t.db.postgres {
		return txQuerier{t}
	}
	if s := t.db.stmt(ctx, q, false); s != nil {
		return stmtQuerier{t.stmt(ctx, s)}
	}
	if preparable(q) {
		t.misses = append(t.misses, q)
	}
	return txQuerier{t}
}

// stmt is s bound to the transaction, bound once per transaction: a
// call's transaction runs some queries twice (the cart, read by the
// action and again for the delta), and database/sql's binding of a
// statement to a transaction allocates and registers it each time.
func (t *Tx) stmt(ctx context.Context, s *sql.Stmt) *sql.Stmt {
	for _, b := range t.bound[:t.nbound] {
		if b.pool == s {
			return b.tx
		}
	}
	ts := t.tx.StmtContext(ctx, s)
	if t.nbound < len(t.bound) {
		t.bound[t.nbound] = boundStmt{s, ts}
		t.nbound++
	}
	return ts
}

// boundStmt is a statement of the pool and its binding to a transaction.
type boundStmt struct{ pool, tx *sql.Stmt }

// stmtQuerier runs one prepared statement; the query text it is given is
// the statement's own.
type stmtQuerier struct{ s *sql.Stmt }

func (q stmtQuerier) ExecContext(ctx context.Context, _ string, args ...any) (sql.Result, error) {
	return q.s.ExecContext(ctx, args...)
}
func (q stmtQuerier) QueryContext(ctx context.Context, _ string, args ...any) (*sql.Rows, error) {
	return q.s.QueryContext(ctx, args...)
}
func (q stmtQuerier) QueryRowContext(ctx context.Context, _ string, args ...any) *sql.Row {
	return q.s.QueryRowContext(ctx, args...)
}

func (t *Tx) ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error) {
	return t.prepared(ctx, q).ExecContext(ctx, q, args...)
}
func (t *Tx) QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	return t.prepared(ctx, q).QueryContext(ctx, q, args...)
}
func (t *Tx) QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row {
	return t.prepared(ctx, q).QueryRowContext(ctx, q, args...)
}

// txQuerier runs queries in the transaction as they are, unprepared.
type txQuerier struct{ t *Tx }

func (q txQuerier) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return q.t.tx.ExecContext(ctx, q.t.db.rebind(query), args...)
}
func (q txQuerier) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	return q.t.tx.QueryContext(ctx, q.t.db.rebind(query), args...)
}
func (q txQuerier) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	return q.t.tx.QueryRowContext(ctx, q.t.db.rebind(query), args...)
}

// rebind rewrites ? placeholders (outside quoted text) to $1, $2… for
// PostgreSQL.
func (db *DB) rebind(q string) string {
	if !db.postgres || !strings.Contains(q, "?") {
		return q
	}
	var b strings.Builder
	n := 0
	quoted := false
	for i := 0; i < len(q); i++ {
		c := q[i]
		switch {
		case c == '\'':
			quoted = !quoted
		case c == '?' && !quoted:
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// least is the SQL function of the smallest of its arguments.
func (db *DB) least() string {
	if db.postgres {
		return "least"
	}
	return "min"
}

// forUpdate locks the rows a transaction reads, where the database has
// row locks (PostgreSQL); SQLite's transactions take the database's write
// lock at their start instead.
func (db *DB) forUpdate() string {
	if db.postgres {
		return " FOR UPDATE"
	}
	return ""
}
