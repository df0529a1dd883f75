package shop

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/affordances-go/affordances/site"
)

// What only the person may do (make or revoke a token, add or remove a
// passkey) is proven by a passkey where the person has one (presence). A
// person without one proves it by having typed their password on the site
// a short while ago ("sudo mode", as GitHub does): a cookie alone, which
// an agent driving the browser or a program given the cookie holds,
// never mints a token. recentWindow is how long ago.
const recentWindow = 10 * time.Minute

// peopleOnly are the shop's people-only actions, which recentGate holds.
var peopleOnly = map[string]bool{"createToken": true, "revokeToken": true, "addPasskey": true, "removePasskey": true}

// recentGate is the shop's gate of site.StagePresence for a person
// without a passkey: a people-only action runs only in a session signed
// in with the password within recentWindow; otherwise the person is sent
// to sign in again, and nothing runs. addPasskey checks the password
// itself, on the form.
func (a *App) recentGate(r *site.Request, c *site.Consent) error {
	if !peopleOnly[c.Action] || c.Action == "addPasskey" {
		return nil
	}
	return a.recentSignIn(r, "change your tokens")
}

// recentSignIn holds what only the person may do, for a person without a
// passkey, to a session signed in with the password within recentWindow:
// people-only actions (recentGate) and approving an agent's request (the
// approval page's Check). what says what they were doing, for the message.
func (a *App) recentSignIn(r *site.Request, what string) error {
	sh := shopperOf(r)
	if sh.User == nil || sh.Session == "" {
		return nil
	}
	if a.passkeys != nil {
		if has, err := a.passkeys.Has(r.Context(), r.Caller.AccountID()); err != nil || has {
			return err // a passkey proves the person (presence)
		}
	}
	at, err := a.store.SessionSignedInAt(r.Context(), sh.Session)
	if err != nil {
		return err
	}
	if a.store.now().Sub(at) <= recentWindow {
		return nil
	}
	return site.Forbidden("For your safety, sign in again with your password before you %s: %s (it counts for %d minutes).",
		what, site.WithReturn("/login", r.URL.Path), int(recentWindow.Minutes()))
}

// SessionSignedInAt is when the session of the cookie's value was
// signed in.
func (s *Store) SessionSignedInAt(ctx context.Context, plain string) (time.Time, error) {
	var at int64
	err := s.db.QueryRowContext(ctx, `SELECT created_at FROM sessions WHERE id_hash = ?`, hashSecret(plain)).Scan(&at)
	if errors.Is(err, sql.ErrNoRows) {
		return time.Time{}, ErrNotFound
	}
	if err != nil {
		return time.Time{}, fmt.Errorf("reading session: %w", err)
	}
	return time.Unix(at, 0), nil
}
