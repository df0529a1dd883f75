package dials

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// SessionCookie is the name of the application's session cookie.
const SessionCookie = "dials_session"

// Sessions signs and reads the session cookie: the user's id and an
// expiry, with an HMAC.
type Sessions struct {
	Secret []byte
	Now    func() time.Time
}

// Cookie returns the session cookie of a user.
func (s Sessions) Cookie(userID int) *http.Cookie {
	payload := strconv.Itoa(userID) + "." + strconv.FormatInt(s.Now().Add(24*time.Hour).Unix(), 10)
	return &http.Cookie{Name: SessionCookie, Value: payload + "." + s.sign(payload), Path: "/", HttpOnly: true, SameSite: http.SameSiteLaxMode}
}

// UserID returns the user of a valid, unexpired session cookie.
func (s Sessions) UserID(r *http.Request) (int, bool) {
	c, err := r.Cookie(SessionCookie)
	if err != nil {
		return 0, false
	}
	i := strings.LastIndexByte(c.Value, '.')
	if i < 0 || !hmac.Equal([]byte(c.Value[i+1:]), []byte(s.sign(c.Value[:i]))) {
		return 0, false
	}
	id, exp, ok := strings.Cut(c.Value[:i], ".")
	if !ok {
		return 0, false
	}
	until, err := strconv.ParseInt(exp, 10, 64)
	if err != nil || s.Now().Unix() > until {
		return 0, false
	}
	n, err := strconv.Atoi(id)
	return n, err == nil
}

func (s Sessions) sign(payload string) string {
	m := hmac.New(sha256.New, s.Secret)
	m.Write([]byte(payload))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// Authenticate finds the user of a request: an API key as a bearer token
// (an invalid key is reported with bad set), else the session cookie.
func (a *App) Authenticate(r *http.Request) (u User, bearer, bad bool) {
	if h := r.Header.Get("Authorization"); strings.HasPrefix(h, "Bearer ") {
		u, ok := a.Store.KeyUser(strings.TrimPrefix(h, "Bearer "))
		return u, true, !ok
	}
	if id, ok := a.Sessions.UserID(r); ok {
		u, ok := a.Store.User(id)
		return u, false, !ok
	}
	return User{}, false, false
}
