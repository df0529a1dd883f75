package shop

import (
	"context"
	"strings"
	"time"
)

// DumpText returns every row of the tables that hold credentials and
// their traces, as text, for tests that look for a secret in clear.
func (s *Store) DumpText(ctx context.Context) (string, error) {
	var b strings.Builder
	for _, q := range []string{`SELECT * FROM sessions`, `SELECT * FROM afford_tokens`, `SELECT * FROM approvals`, `SELECT * FROM devices`, `SELECT * FROM users`} {
		if err := digestRows(ctx, s.db, q, &b); err != nil {
			return "", err
		}
	}
	return b.String(), nil
}

// AgeSessions moves every session's sign-in back by d, as if it had been
// signed in that long ago.
func (s *Store) AgeSessions(ctx context.Context, d time.Duration) error {
	_, err := s.db.ExecContext(ctx, `UPDATE sessions SET created_at = created_at - ?`, int64(d.Seconds()))
	return err
}

// AddPasskeyRow stores a passkey row as if the account had added one from
// browser at t (no credential data: it proves nothing).
func (s *Store) AddPasskeyRow(ctx context.Context, account, id, name, browser string, t time.Time) error {
	return s.exec(ctx, `INSERT INTO passkeys (id, account, name, created_at, data, browser) VALUES (?, ?, ?, ?, '', ?)`, id, account, name, t.Unix(), browser)
}

// BrowserOf is browserOf, for the tests.
var BrowserOf = browserOf
