package tokens

import (
	"context"
	"database/sql"
	"sync"
	"sync/atomic"
)

// preparedStmt is a statement prepared on a database at its first use
// and kept for the store's life; database/sql prepares it again on each
// connection that runs it. A failed preparation is not kept: the table
// may not be migrated yet, and the query then fails with the database's
// own error, as it would unprepared.
type preparedStmt struct {
	stmt atomic.Pointer[sql.Stmt]
	mu   sync.Mutex // held while preparing, so that one preparation is kept
}

// on returns the statement q prepared on db, or nil when it cannot be
// prepared now.
func (p *preparedStmt) on(ctx context.Context, db *sql.DB, q string) *sql.Stmt {
	if st := p.stmt.Load(); st != nil {
		return st
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if st := p.stmt.Load(); st != nil {
		return st
	}
	st, err := db.PrepareContext(ctx, q)
	if err != nil {
		return nil
	}
	p.stmt.Store(st)
	return st
}
