package shop

import (
	"context"
	"fmt"
	"log/slog"
	"time"
)

// ForgetExpiredSessions deletes up to 10,000 sessions past their time and
// returns how many. Sign-ins run it, at most once every sweepEvery, so the
// table holds the sessions that can still be used; an operator may run it
// too.
func (s *Store) ForgetExpiredSessions(ctx context.Context) (int, error) {
	res, err := s.db.ExecContext(ctx, `DELETE FROM sessions WHERE id_hash IN (
		SELECT id_hash FROM sessions WHERE expires_at < ? LIMIT 10000)`, s.now().Unix())
	if err != nil {
		return 0, fmt.Errorf("forgetting expired sessions: %w", err)
	}
	n, _ := res.RowsAffected()
	return int(n), nil
}

// forgetSessionsIfDue starts ForgetExpiredSessions, beside the sign-in
// that called it, if it has not run for sweepEvery.
func (s *Store) forgetSessionsIfDue() {
	now := s.now()
	last := s.sessionsSwept.Load()
	if now.Sub(time.UnixMilli(last)) < sweepEvery || !s.sessionsSwept.CompareAndSwap(last, now.UnixMilli()) {
		return
	}
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if _, err := s.ForgetExpiredSessions(ctx); err != nil {
			slog.Error("shop: forgetting expired sessions", "err", err)
		}
	}()
}
