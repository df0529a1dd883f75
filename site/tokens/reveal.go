package tokens

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"net/http"
	"sync"

	"github.com/affordances-go/affordances/site"
)

// Reveal carries a new token's secret from the form that made it to the
// page the person sees next, and nowhere else: no answer of an agent's
// door ever holds it.
type Reveal interface {
	// Keep holds secret for the person's next view of the page.
	Keep(r *site.Request, secret string) error
	// Take returns the secret kept for this person ("" when none) and
	// forgets it.
	Take(r *site.Request) (string, error)
}

// CookieReveal is the default [Reveal]: a cookie of the page's path,
// HttpOnly (no script reads it), SameSite=Strict, Secure over HTTPS, that
// lives five minutes and is cleared when the page shows the secret. The
// secret in it is sealed (AES-256-GCM, bound to the account and the page),
// so that whoever reads the browser's cookies (an agent driving it over
// CDP) finds no token in them; only the person's next view of the page,
// on this server, opens it. An application with server-side sessions can
// keep the secret there instead.
type CookieReveal struct {
	// Name is the cookie's name; "afford_new_token" when empty.
	Name string
	// Key seals the secret: 32 bytes, the same on every instance behind
	// one load balancer (else a page served by another instance than the
	// form's shows no secret, and the person makes another token).
	// Default: 32 random bytes for this process.
	Key []byte
}

func (c CookieReveal) name() string {
	if c.Name == "" {
		return "afford_new_token"
	}
	return c.Name
}

// processKey is the default sealing key: random, for this process.
var processKey = sync.OnceValue(func() []byte {
	b := make([]byte, 32)
	rand.Read(b)
	return b
})

// aead is the cipher that seals the secret.
func (c CookieReveal) aead() (cipher.AEAD, error) {
	key := c.Key
	if key == nil {
		key = processKey()
	}
	if len(key) != 32 {
		return nil, errors.New("tokens: CookieReveal.Key must be 32 bytes")
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(block)
}

// sealedFor is what a sealed secret is bound to: the account and the page.
func sealedFor(r *site.Request) []byte {
	return []byte(r.Caller.AccountID() + "\x00" + r.URL.Path)
}

// Keep implements [Reveal].
func (c CookieReveal) Keep(r *site.Request, secret string) error {
	g, err := c.aead()
	if err != nil {
		return err
	}
	nonce := make([]byte, g.NonceSize())
	rand.Read(nonce)
	sealed := g.Seal(nonce, nonce, []byte(secret), sealedFor(r))
	r.SetCookie(&http.Cookie{Name: c.name(), Value: base64.RawURLEncoding.EncodeToString(sealed), Path: r.URL.Path, MaxAge: 300,
		HttpOnly: true, SameSite: http.SameSiteStrictMode})
	return nil
}

// Take implements [Reveal]. A cookie that does not open (another
// instance's key, another account, tampered) is cleared and shows nothing.
func (c CookieReveal) Take(r *site.Request) (string, error) {
	ck, err := r.Cookie(c.name())
	if err != nil || ck.Value == "" {
		return "", nil
	}
	r.SetCookie(&http.Cookie{Name: c.name(), Value: "", Path: r.URL.Path, MaxAge: -1, HttpOnly: true, SameSite: http.SameSiteStrictMode})
	g, err := c.aead()
	if err != nil {
		return "", err
	}
	sealed, err := base64.RawURLEncoding.DecodeString(ck.Value)
	if err != nil || len(sealed) < g.NonceSize() {
		return "", nil
	}
	plain, err := g.Open(nil, sealed[:g.NonceSize()], sealed[g.NonceSize():], sealedFor(r))
	if err != nil {
		return "", nil
	}
	return string(plain), nil
}
