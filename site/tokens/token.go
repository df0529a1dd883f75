package tokens

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"strings"
	"time"
)

// ErrNotFound is returned for a token that does not exist, is revoked,
// has expired or belongs to another account.
var ErrNotFound = errors.New("tokens: no such token")

// Token is one bearer token as its owner sees it. The secret itself is
// never kept: it is returned once, by [Store.Create].
type Token struct {
	// ID numbers the token in its store.
	ID int64
	// Account is the application's id of the person the token acts for,
	// as [site.Caller.Account] reports it for their sessions too.
	Account string
	// Label is the name the person gave the token ("laptop").
	Label string
	// Grant is what the token may do.
	Grant Grant
	// Created is when the token was made.
	Created time.Time
	// LastUsed is when it was last used (to the minute: a busy token is
	// not a write per request), and LastAgent which agent used it, as the
	// agent's verified name or its User-Agent. Zero: never used.
	LastUsed  time.Time
	LastAgent string
}

// Grant is what a person lets one token do.
type Grant struct {
	// Actions, when not nil, are the only actions the token may run
	// ([site.Caller.Scopes]); nil allows every action the person may run,
	// an empty non-nil list none.
	Actions []string
	// Expires is when the token stops working; zero: never.
	Expires time.Time
	// Standing is a standing approval: calls the person approves in
	// advance, up to amounts in the application's own unit (cents, say).
	// Zero is none. The kit keeps it with the token; the application
	// decides what a call costs and what a day has used (see
	// [Standing.Covers]).
	Standing Standing
}

// Standing is an approval given in advance: calls of up to PerCall each,
// and PerDay in a day, run without asking the person.
type Standing struct {
	PerCall int64
	PerDay  int64
}

// On reports whether the grant approves anything in advance.
func (s Standing) On() bool { return s.PerCall > 0 }

// Covers reports whether a call of amount, on a day that has used spent,
// is within the standing approval.
func (s Standing) Covers(amount, spent int64) bool {
	return s.On() && amount >= 0 && amount <= s.PerCall && spent+amount <= s.PerDay
}

// Live reports whether the token works at t: it has not expired.
func (t Token) Live(at time.Time) bool { return t.Grant.Expires.IsZero() || at.Before(t.Grant.Expires) }

// DefaultPrefix starts every secret the kit makes, so that a leaked one
// is recognisable (secret scanners, logs) and the person sees what it is.
const DefaultPrefix = "afk_"

// NewSecret returns a new secret with prefix and the hash to store.
func NewSecret(prefix string) (secret, hash string) {
	b := make([]byte, 32)
	rand.Read(b) // never fails (crypto/rand)
	secret = prefix + base64.RawURLEncoding.EncodeToString(b)
	return secret, Hash(secret)
}

// Hash is how a secret is stored: its SHA-256 in hex. A secret holds 256
// random bits, so a fast hash is enough: no dictionary reaches it.
func Hash(secret string) string {
	h := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(h[:])
}

// CleanLabel trims a label and keeps its first 40 characters; an empty
// label becomes "token" and the time it was made.
func CleanLabel(label string, now time.Time) string {
	label = strings.TrimSpace(label)
	if r := []rune(label); len(r) > 40 {
		label = string(r[:40])
	}
	if label == "" {
		label = "token " + now.UTC().Format("2006-01-02 15:04")
	}
	return label
}
