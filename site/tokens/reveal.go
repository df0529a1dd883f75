package tokens

import (
	"net/http"

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
// secret goes back to the browser that made it, which is where it is
// shown anyway; an application with server-side sessions can keep it
// there instead.
type CookieReveal struct {
	// Name is the cookie's name; "afford_new_token" when empty.
	Name string
}

func (c CookieReveal) name() string {
	if c.Name == "" {
		return "afford_new_token"
	}
	return c.Name
}

// Keep implements [Reveal].
func (c CookieReveal) Keep(r *site.Request, secret string) error {
	r.SetCookie(&http.Cookie{Name: c.name(), Value: secret, Path: r.URL.Path, MaxAge: 300, HttpOnly: true, SameSite: http.SameSiteStrictMode})
	return nil
}

// Take implements [Reveal].
func (c CookieReveal) Take(r *site.Request) (string, error) {
	ck, err := r.Cookie(c.name())
	if err != nil || ck.Value == "" {
		return "", nil
	}
	r.SetCookie(&http.Cookie{Name: c.name(), Value: "", Path: r.URL.Path, MaxAge: -1, HttpOnly: true, SameSite: http.SameSiteStrictMode})
	return ck.Value, nil
}
