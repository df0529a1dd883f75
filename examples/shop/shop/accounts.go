package shop

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"database/sql"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/affordances-go/affordances/site/tokens"
)

// User is a shop account.
type User struct {
	ID    int64  `json:"-"`
	Email string `json:"email"`
	Name  string `json:"name"`
}

// hashPassword returns "pbkdf2-sha256$ITER$SALT$KEY".
func (s *Store) hashPassword(pw string) (string, error) {
	salt := make([]byte, 16)
	rand.Read(salt)
	key, err := pbkdf2.Key(sha256.New, pw, salt, s.PasswordIterations, 32)
	if err != nil {
		return "", fmt.Errorf("hashing a password: %w", err)
	}
	b64 := base64.RawStdEncoding.EncodeToString
	return "pbkdf2-sha256$" + strconv.Itoa(s.PasswordIterations) + "$" + b64(salt) + "$" + b64(key), nil
}

func checkPassword(stored, pw string) bool {
	parts := strings.Split(stored, "$")
	if len(parts) != 4 || parts[0] != "pbkdf2-sha256" {
		return false
	}
	iter, err := strconv.Atoi(parts[1])
	if err != nil || iter < 1 {
		return false
	}
	salt, err1 := base64.RawStdEncoding.DecodeString(parts[2])
	want, err2 := base64.RawStdEncoding.DecodeString(parts[3])
	if err1 != nil || err2 != nil {
		return false
	}
	got, err := pbkdf2.Key(sha256.New, pw, salt, iter, len(want))
	return err == nil && subtle.ConstantTimeCompare(got, want) == 1
}

// NormalizeEmail is the form an email is kept and looked up in: without
// the spaces around it, in lower case, and without the trailing dots of a
// fully qualified domain ("x@example.com." is the mailbox of
// "x@example.com", not a second account).
func NormalizeEmail(email string) string {
	e := strings.ToLower(strings.TrimSpace(email))
	if at := strings.LastIndexByte(e, '@'); at >= 0 {
		e = e[:at+1] + strings.TrimRight(e[at+1:], ".")
	}
	return e
}

// ErrEmailTaken is returned by CreateUser for an email that already has
// an account.
var ErrEmailTaken = errors.New("shop: the email already has an account")

// CreateUser adds an account. The email is kept in lower case.
func (s *Store) CreateUser(ctx context.Context, email, name, password string) (int64, error) {
	hash, err := s.hashPassword(password)
	if err != nil {
		return 0, err
	}
	email = NormalizeEmail(email)
	var id int64
	err = s.tx(ctx, func(tx *Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM users WHERE email = ?`, email).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			return ErrEmailTaken
		}
		err := tx.QueryRowContext(ctx, `INSERT INTO users (email, name, password_hash) VALUES (?, ?, ?) RETURNING id`, email, name, hash).Scan(&id)
		return err
	})
	if err != nil && !errors.Is(err, ErrEmailTaken) {
		err = fmt.Errorf("creating user: %w", err)
	}
	return id, err
}

// ErrBadCredentials is returned for an unknown email or a wrong password;
// the two are not told apart.
var ErrBadCredentials = errors.New("shop: wrong email or password")

// dummyHash is checked against when the email is unknown, so that the
// answer takes as long as for a known one.
var dummyHash = "pbkdf2-sha256$600000$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"

// Authenticate checks an email and password.
func (s *Store) Authenticate(ctx context.Context, email, password string) (*User, error) {
	var u User
	var hash string
	err := s.db.QueryRowContext(ctx, `SELECT id, email, name, password_hash FROM users WHERE email = ?`, NormalizeEmail(email)).
		Scan(&u.ID, &u.Email, &u.Name, &hash)
	if errors.Is(err, sql.ErrNoRows) {
		checkPassword(dummyHash, password)
		return nil, ErrBadCredentials
	}
	if err != nil {
		return nil, fmt.Errorf("reading user: %w", err)
	}
	if !checkPassword(hash, password) {
		return nil, ErrBadCredentials
	}
	return &u, nil
}

// secret returns a new random secret and the hash stored in its place.
func secret(prefix string) (plain, hash string) {
	b := make([]byte, 32)
	rand.Read(b)
	plain = prefix + base64.RawURLEncoding.EncodeToString(b)
	return plain, hashSecret(plain)
}

// hashSecret is how session ids, guest cart keys and tokens are stored:
// a leaked database does not hand out working credentials.
func hashSecret(plain string) string {
	h := sha256.Sum256([]byte(plain))
	return hex.EncodeToString(h[:])
}

// SessionTTL is how long a sign-in lasts.
const SessionTTL = 14 * 24 * time.Hour

// CreateSession signs the user in and returns the session cookie's value.
func (s *Store) CreateSession(ctx context.Context, userID int64) (string, error) {
	plain, hash := secret("s_")
	now := s.now()
	err := s.exec(ctx, `INSERT INTO sessions (id_hash, user_id, created_at, expires_at) VALUES (?, ?, ?, ?)`,
		hash, userID, now.Unix(), now.Add(SessionTTL).Unix())
	if err != nil {
		return "", fmt.Errorf("creating session: %w", err)
	}
	s.sweepIfDue(&s.sessionsSwept, "forgetting expired sessions", s.ForgetExpiredSessions) // sign-ins add sessions; one clears those past their time
	return plain, nil
}

// LastSignIn is when the user last signed in (their newest session), or
// the zero time for a first sign-in.
func (s *Store) LastSignIn(ctx context.Context, userID int64) (time.Time, error) {
	var at sql.NullInt64
	if err := s.db.QueryRowContext(ctx, `SELECT max(created_at) FROM sessions WHERE user_id = ?`, userID).Scan(&at); err != nil {
		return time.Time{}, fmt.Errorf("reading the last sign-in: %w", err)
	}
	if !at.Valid {
		return time.Time{}, nil
	}
	return time.Unix(at.Int64, 0), nil
}

// Session returns the user of a live session, by the cookie's value.
func (s *Store) Session(ctx context.Context, plain string) (*User, error) {
	var u User
	err := s.db.QueryRowContext(ctx, `SELECT u.id, u.email, u.name FROM sessions s JOIN users u ON u.id = s.user_id
		WHERE s.id_hash = ? AND s.expires_at > ?`, hashSecret(plain), s.now().Unix()).Scan(&u.ID, &u.Email, &u.Name)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("reading session: %w", err)
	}
	return &u, nil
}

// GuestCartExists reports whether a guest cart is stored under the hash
// of a guest cookie: only a cookie the store issued has one.
func (s *Store) GuestCartExists(ctx context.Context, hash string) (bool, error) {
	var n int
	err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM carts WHERE guest_hash = ?`, hash).Scan(&n)
	if err != nil {
		return false, fmt.Errorf("reading guest cart: %w", err)
	}
	return n > 0, nil
}

// DeleteSession signs a session out.
func (s *Store) DeleteSession(ctx context.Context, plain string) error {
	return s.exec(ctx, `DELETE FROM sessions WHERE id_hash = ?`, hashSecret(plain))
}

// SetFlash keeps a message for the session's next page view; PopFlash
// reads and clears it. A new token is shown to a person this way, once,
// without ever being put in a URL.
//
// The flash is stored sealed (AES-GCM) with a key derived from the
// session's own secret, which the database never holds (it keeps only its
// hash): a leaked database gives no working token, even one created a
// moment before and not shown yet.
func (s *Store) SetFlash(ctx context.Context, plain, msg string) error {
	return s.exec(ctx, `UPDATE sessions SET flash = ? WHERE id_hash = ?`, sealFlash(plain, msg), hashSecret(plain))
}

// flashKey is the key that seals a session's flash.
func flashKey(session string) cipher.AEAD {
	k := sha256.Sum256([]byte("shop flash key\x00" + session))
	b, _ := aes.NewCipher(k[:])
	g, _ := cipher.NewGCM(b)
	return g
}

// sealFlash seals msg for the session; "" stays "".
func sealFlash(session, msg string) string {
	if msg == "" {
		return ""
	}
	g := flashKey(session)
	nonce := make([]byte, g.NonceSize())
	rand.Read(nonce)
	return "v1:" + base64.RawURLEncoding.EncodeToString(g.Seal(nonce, nonce, []byte(msg), nil))
}

// openFlash opens a sealed flash; anything else reads as none.
func openFlash(session, sealed string) string {
	b, err := base64.RawURLEncoding.DecodeString(strings.TrimPrefix(sealed, "v1:"))
	g := flashKey(session)
	if err != nil || !strings.HasPrefix(sealed, "v1:") || len(b) < g.NonceSize() {
		return ""
	}
	msg, err := g.Open(nil, b[:g.NonceSize()], b[g.NonceSize():], nil)
	if err != nil {
		return ""
	}
	return string(msg)
}

// PopFlash returns the session's flash message and clears it.
func (s *Store) PopFlash(ctx context.Context, plain string) (string, error) {
	var msg string
	err := s.tx(ctx, func(tx *Tx) error {
		err := tx.QueryRowContext(ctx, `SELECT flash FROM sessions WHERE id_hash = ?`, hashSecret(plain)).Scan(&msg)
		if errors.Is(err, sql.ErrNoRows) || (err == nil && msg == "") {
			return nil
		}
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `UPDATE sessions SET flash = '' WHERE id_hash = ?`, hashSecret(plain))
		return err
	})
	return openFlash(plain, msg), err
}

// Token is an API token as its owner sees it; the secret itself is shown
// only once, when it is created. The token kit keeps it (tokens.go).
type Token struct {
	ID        int64     `json:"id"`
	Label     string    `json:"label"`
	CreatedAt time.Time `json:"createdAt"`
	// Grant is what the token may do.
	Grant Grant `json:"grant"`
	// LastUsed is when the token was last used (to the minute), and
	// LastAgent the agent that used it: the verified agent of a signed
	// request, else its User-Agent.
	LastUsed  time.Time `json:"lastUsed,omitzero"`
	LastAgent string    `json:"lastAgent,omitempty"`
}

// tokenOf is the kit's token in the store's words.
func tokenOf(t tokens.Token) Token {
	return Token{ID: t.ID, Label: t.Label, CreatedAt: t.Created.UTC(), Grant: grantOf(t.Grant), LastUsed: utc(t.LastUsed), LastAgent: t.LastAgent}
}

func utc(t time.Time) time.Time {
	if t.IsZero() {
		return t
	}
	return t.UTC()
}

// CreateToken issues a bearer token for the user and returns it; only its
// hash is stored.
func (s *Store) CreateToken(ctx context.Context, userID int64, label string) (string, error) {
	return s.CreateGrantedToken(ctx, userID, label, Grant{})
}

// StartTokenLabel begins the label of the token the store prints when it
// starts, for the demo account.
const StartTokenLabel = "printed at start"

// NewStartToken issues the token the store prints when it starts, and
// revokes the ones earlier starts printed, in one transaction: the
// account keeps one such token, not one more per start.
func (s *Store) NewStartToken(ctx context.Context, userID int64) (string, error) {
	secret, hash := tokens.NewSecret(tokens.DefaultPrefix)
	now := s.now()
	acct := tokenAccount(userID)
	err := s.tx(ctx, func(tx *Tx) error {
		ts := s.toks.Tx(tx.tx)
		old, err := ts.List(ctx, acct)
		if err != nil {
			return err
		}
		for _, t := range old {
			if strings.HasPrefix(t.Label, StartTokenLabel) {
				if err := ts.Revoke(ctx, acct, t.ID, now); err != nil {
					return err
				}
			}
		}
		// The label says where the token came from; the account page says
		// when it was made.
		_, err = ts.Create(ctx, acct, StartTokenLabel, hash, tokens.Grant{}, now)
		return err
	})
	if err != nil {
		return "", fmt.Errorf("creating the start token: %w", err)
	}
	return secret, nil
}

// TokenUser returns the user and the token of a live bearer token: not
// revoked, not expired. agent names who calls (the verified agent, else
// the User-Agent), recorded with the token's last use (by the kit: at
// most once a minute, or when the agent changes).
func (s *Store) TokenUser(ctx context.Context, plain, agent string) (*User, Token, error) {
	t, err := s.kit.Authenticate(ctx, plain, agent)
	if errors.Is(err, tokens.ErrNotFound) {
		return nil, Token{}, ErrNotFound
	}
	if err != nil {
		return nil, Token{}, err
	}
	u, err := s.UserByID(ctx, userOfAccount(t.Account))
	if err != nil {
		return nil, Token{}, err
	}
	return u, tokenOf(t), nil
}

// TokenOwner returns the user of a live token (not revoked, not
// expired), without recording a use: for the command that prints the
// demo account's token again.
func (s *Store) TokenOwner(ctx context.Context, plain string) (int64, error) {
	t, err := s.kit.Lookup(ctx, plain)
	if errors.Is(err, tokens.ErrNotFound) {
		return 0, ErrNotFound
	}
	if err != nil {
		return 0, err
	}
	return userOfAccount(t.Account), nil
}

// Tokens lists the user's live tokens, with their grants and last use.
func (s *Store) Tokens(ctx context.Context, userID int64) ([]Token, error) {
	ts, err := s.toks.List(ctx, tokenAccount(userID))
	if err != nil {
		return nil, err
	}
	out := make([]Token, len(ts))
	for i, t := range ts {
		out[i] = tokenOf(t)
	}
	return out, nil
}

// RevokeToken revokes one of the user's tokens.
func (s *Store) RevokeToken(ctx context.Context, userID, id int64) error {
	err := s.kit.Revoke(ctx, tokenAccount(userID), id)
	if errors.Is(err, tokens.ErrNotFound) {
		return ErrNotFound
	}
	return err
}

// UserByEmail returns the id of the account with the email.
// UserByID returns an account by its id.
func (s *Store) UserByID(ctx context.Context, id int64) (*User, error) {
	var u User
	err := s.db.QueryRowContext(ctx, `SELECT id, email, name FROM users WHERE id = ?`, id).Scan(&u.ID, &u.Email, &u.Name)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("reading user: %w", err)
	}
	return &u, nil
}

// UserByEmail returns the id of the account of an email.
func (s *Store) UserByEmail(ctx context.Context, email string) (int64, error) {
	var id int64
	err := s.db.QueryRowContext(ctx, `SELECT id FROM users WHERE email = ?`, NormalizeEmail(email)).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, ErrNotFound
	}
	return id, err
}

// CreateDevice remembers a browser the user signed in from, and returns
// the device cookie's value; only its hash is stored.
func (s *Store) CreateDevice(ctx context.Context, userID int64) (string, error) {
	plain, hash := secret("d_")
	err := s.exec(ctx, `INSERT INTO devices (hash, user_id, created_at) VALUES (?, ?, ?)`, hash, userID, s.now().Unix())
	if err != nil {
		return "", fmt.Errorf("remembering a device: %w", err)
	}
	return plain, nil
}

// DeviceUser returns the user a device cookie was given to, or
// ErrNotFound.
func (s *Store) DeviceUser(ctx context.Context, plain string) (int64, error) {
	var id int64
	err := s.db.QueryRowContext(ctx, `SELECT user_id FROM devices WHERE hash = ?`, hashSecret(plain)).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, ErrNotFound
	}
	if err != nil {
		return 0, fmt.Errorf("reading a device: %w", err)
	}
	return id, nil
}
