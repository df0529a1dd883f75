package shop

import (
	"context"
	"database/sql"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/affordances-go/affordances/site"
	"github.com/affordances-go/affordances/site/presence"
	"github.com/affordances-go/affordances/site/safetext"
)

// Passkeys keeps people's passkeys and the challenges of their ceremonies
// (presence.Store) in the shop's database, so that every instance sees
// them and a challenge is taken once, whichever instance answers.
type Passkeys struct{ s *Store }

// Passkeys returns the store's passkeys.
func (s *Store) Passkeys() *Passkeys { return &Passkeys{s} }

var keyID = base64.RawURLEncoding

// Credentials implements presence.Store.
func (p *Passkeys) Credentials(ctx context.Context, account string) ([]presence.Credential, error) {
	rows, err := p.s.db.QueryContext(ctx, `SELECT id, name, created_at, data FROM passkeys WHERE account = ? ORDER BY created_at, id`, account)
	if err != nil {
		return nil, fmt.Errorf("reading passkeys: %w", err)
	}
	defer rows.Close()
	var out []presence.Credential
	for rows.Next() {
		var id, name, data string
		var created int64
		if err := rows.Scan(&id, &name, &created, &data); err != nil {
			return nil, err
		}
		raw, err := keyID.DecodeString(id)
		if err != nil {
			return nil, fmt.Errorf("a passkey's id: %w", err)
		}
		out = append(out, presence.Credential{ID: raw, Name: name, Created: time.Unix(created, 0), Data: []byte(data)})
	}
	return out, rows.Err()
}

// AddCredential implements presence.Store, in the call's transaction (so
// that a repeat of a keyed call adds nothing).
func (p *Passkeys) AddCredential(ctx context.Context, account string, c presence.Credential) error {
	return p.s.exec(ctx, `INSERT INTO passkeys (id, account, name, created_at, data) VALUES (?, ?, ?, ?, ?)`,
		keyID.EncodeToString(c.ID), account, c.Name, c.Created.Unix(), string(c.Data))
}

// UpdateCredential implements presence.Store.
func (p *Passkeys) UpdateCredential(ctx context.Context, account string, id, data []byte) error {
	_, err := p.s.db.ExecContext(ctx, `UPDATE passkeys SET data = ? WHERE id = ? AND account = ?`, string(data), keyID.EncodeToString(id), account)
	return err
}

// RemoveCredential implements presence.Store.
func (p *Passkeys) RemoveCredential(ctx context.Context, account string, id []byte) error {
	return p.s.tx(ctx, func(tx *Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM passkeys WHERE id = ? AND account = ?`, keyID.EncodeToString(id), account)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return presence.ErrNotFound
		}
		return nil
	})
}

// AccountOf implements presence.Store.
func (p *Passkeys) AccountOf(ctx context.Context, id []byte) (string, error) {
	var account string
	err := p.s.db.QueryRowContext(ctx, `SELECT account FROM passkeys WHERE id = ?`, keyID.EncodeToString(id)).Scan(&account)
	if errors.Is(err, sql.ErrNoRows) {
		return "", presence.ErrNotFound
	}
	return account, err
}

// PutChallenge implements presence.Store. Challenges past their time
// are forgotten in the background, at most once every sweepEvery
// (ForgetExpiredChallenges), not before every insert: a flood of
// challenges (which presence bounds per address) costs one insert each.
func (p *Passkeys) PutChallenge(ctx context.Context, nonce string, c presence.Challenge) error {
	_, err := p.s.db.ExecContext(ctx, `INSERT INTO presence_challenges (nonce, account, kind, session, expires_at) VALUES (?, ?, ?, ?, ?)`,
		nonce, c.Account, c.Kind, string(c.Session), c.Expires.Unix())
	p.s.sweepIfDue(&p.s.challengesSwept, "forgetting expired challenges", p.s.ForgetExpiredChallenges)
	return err
}

// ForgetExpiredChallenges deletes up to 10,000 passkey challenges past
// their time (through their index on expires_at) and returns how many.
func (s *Store) ForgetExpiredChallenges(ctx context.Context) (int, error) {
	res, err := s.db.ExecContext(ctx, `DELETE FROM presence_challenges WHERE nonce IN (
		SELECT nonce FROM presence_challenges WHERE expires_at < ? LIMIT `+fmt.Sprint(sweepBatch)+`)`, s.now().Unix())
	if err != nil {
		return 0, fmt.Errorf("forgetting expired challenges: %w", err)
	}
	n, _ := res.RowsAffected()
	return int(n), nil
}

// TakeChallenge implements presence.Store: the DELETE that finds the row
// is the one that takes it, so of two instances one gets it.
func (p *Passkeys) TakeChallenge(ctx context.Context, nonce string) (presence.Challenge, error) {
	var c presence.Challenge
	err := p.s.txWithoutKey(ctx, func(tx *Tx) error {
		var session string
		var expires int64
		err := tx.QueryRowContext(ctx, `SELECT account, kind, session, expires_at FROM presence_challenges WHERE nonce = ?`, nonce).
			Scan(&c.Account, &c.Kind, &session, &expires)
		if errors.Is(err, sql.ErrNoRows) {
			return presence.ErrNotFound
		}
		if err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `DELETE FROM presence_challenges WHERE nonce = ?`, nonce)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return presence.ErrNotFound
		}
		c.Session, c.Expires = []byte(session), time.Unix(expires, 0)
		return nil
	})
	return c, err
}

// newPasskeys builds the shop's passkeys for its origins (nil without
// any, or when the first is an IP address, which no browser takes as an
// RP ID: then the shop logs it and works as for accounts without
// passkeys): the RP ID is the first origin's host.
func newPasskeys(store *Store, opts Options, log *slog.Logger, check func(*site.Request, url.Values) error) (*presence.Passkeys, error) {
	origins := opts.PasskeyOrigins
	if len(origins) == 0 {
		origins = opts.Origins
	}
	if len(origins) == 0 {
		return nil, nil
	}
	u, err := url.Parse(origins[0])
	if err != nil || u.Hostname() == "" {
		return nil, fmt.Errorf("passkeys: %q is not an origin", origins[0])
	}
	if net.ParseIP(u.Hostname()) != nil {
		log.Warn("shop: no passkeys: their RP ID must be a domain, not an IP address (use http://localhost:PORT in development)", "origin", origins[0])
		return nil, nil
	}
	return presence.New(presence.Options{RPID: u.Hostname(), RPName: "Heavyweight Supply", Origins: origins, Store: store.Passkeys(),
		CheckRegister: check,
		Accounts: func(ctx context.Context, account string) (string, string) {
			if id, ok := userID(account); ok {
				if u, err := store.UserByID(ctx, id); err == nil {
					return u.Email, u.Name
				}
			}
			return account, account
		}})
}

// userID reads the user id of an account ("user:7").
func userID(account string) (int64, bool) {
	n, err := strconv.ParseInt(strings.TrimPrefix(account, "user:"), 10, 64)
	return n, err == nil && strings.HasPrefix(account, "user:")
}

// SetPasskeyBrowser records the browser a passkey was added from.
func (s *Store) SetPasskeyBrowser(ctx context.Context, account string, id []byte, browser string) error {
	return s.exec(ctx, `UPDATE passkeys SET browser = ? WHERE id = ? AND account = ?`, browser, keyID.EncodeToString(id), account)
}

// PasskeyBrowsers returns the browser each passkey of the account was
// added from, by the passkey's id as the account page writes it.
func (s *Store) PasskeyBrowsers(ctx context.Context, account string) (map[string]string, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, browser FROM passkeys WHERE account = ?`, account)
	if err != nil {
		return nil, fmt.Errorf("reading passkeys: %w", err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var id, browser string
		if err := rows.Scan(&id, &browser); err != nil {
			return nil, err
		}
		out[id] = browser
	}
	return out, rows.Err()
}

// PasskeysAddedSince returns the passkeys of the account added after t,
// as "“name” on DATE from BROWSER", for the person to read at sign-in.
func (s *Store) PasskeysAddedSince(ctx context.Context, account string, t time.Time) ([]string, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT name, created_at, browser FROM passkeys WHERE account = ? AND created_at > ? ORDER BY created_at`, account, t.Unix())
	if err != nil {
		return nil, fmt.Errorf("reading passkeys: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var name, browser string
		var at int64
		if err := rows.Scan(&name, &at, &browser); err != nil {
			return nil, err
		}
		line := safetext.Quote(name) + " on " + time.Unix(at, 0).UTC().Format("2 Jan 2006 15:04") + " UTC"
		if browser != "" {
			line += " from " + browser
		}
		out = append(out, line)
	}
	return out, rows.Err()
}

// browserOf names a browser and its system from a User-Agent, in a few
// words ("Chrome on Linux"), or "" when it says nothing known.
func browserOf(ua string) string {
	name := ""
	for _, b := range []struct{ token, name string }{{"Edg/", "Edge"}, {"OPR/", "Opera"}, {"Firefox/", "Firefox"}, {"Chrome/", "Chrome"}, {"Safari/", "Safari"}} {
		if strings.Contains(ua, b.token) {
			name = b.name
			break
		}
	}
	if name == "" {
		return ""
	}
	for _, o := range []struct{ token, name string }{{"Android", "Android"}, {"iPhone", "iPhone"}, {"iPad", "iPad"}, {"Windows", "Windows"}, {"Mac OS X", "macOS"}, {"CrOS", "ChromeOS"}, {"Linux", "Linux"}} {
		if strings.Contains(ua, o.token) {
			return name + " on " + o.name
		}
	}
	return name
}
