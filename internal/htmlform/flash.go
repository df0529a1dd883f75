package htmlform

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
)

// FlashCookie names the cookie that carries a successful form post's
// outcome to the next page (site.FlashCookie says what it holds).
const FlashCookie = "affordances_flash"

// maxFlash bounds the cookie's value, in bytes; past it the posted values
// are dropped, then the message is cut.
const maxFlash = 1500

// Flash is what the cookie carries.
type Flash struct {
	Message string     `json:"m,omitempty"` // the action's message
	Form    url.Values `json:"f,omitempty"` // the fields posted, without secrets
}

// SecretField reports whether a field must never be shown or kept, by its
// name: a password, a token, a secret.
func SecretField(name string) bool {
	n := strings.ToLower(name)
	return strings.Contains(n, "password") || strings.Contains(n, "token") || strings.Contains(n, "secret")
}

// SetFlash keeps the outcome of an action that ran for the next page the
// person sees. form is kept only when they come back to the same page,
// without fields whose names say they are secrets. The cookie lives a
// minute, is not readable by scripts, and is only ever shown as text
// (templates escape it): a flash set by anyone else can mislead but never
// run, and it changes nothing but what a page shows.
//
// secure marks the cookie Secure: the browser reached the site over HTTPS.
func SetFlash(w http.ResponseWriter, secure bool, msg string, form map[string][]string) {
	f := Flash{Message: msg}
	for k, v := range form {
		if !SecretField(k) {
			if f.Form == nil {
				f.Form = url.Values{}
			}
			f.Form[k] = v
		}
	}
	b, _ := json.Marshal(f)
	if len(b) > maxFlash {
		f.Form = nil
		if len(f.Message) > maxFlash/2 {
			f.Message = strings.ToValidUTF8(f.Message[:maxFlash/2], "")
		}
		b, _ = json.Marshal(f)
	}
	if f.Message == "" && f.Form == nil {
		return
	}
	http.SetCookie(w, &http.Cookie{Name: FlashCookie, Value: base64.RawURLEncoding.EncodeToString(b),
		Path: "/", MaxAge: 60, HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: secure})
}

// TakeFlash returns the flash of the request, if any, and clears it so
// that it shows once; secure is SetFlash's.
func TakeFlash(w http.ResponseWriter, r *http.Request, secure bool) Flash {
	c, err := r.Cookie(FlashCookie)
	if err != nil {
		return Flash{}
	}
	http.SetCookie(w, &http.Cookie{Name: FlashCookie, Value: "", Path: "/", MaxAge: -1, HttpOnly: true,
		SameSite: http.SameSiteLaxMode, Secure: secure})
	var f Flash
	b, err := base64.RawURLEncoding.DecodeString(c.Value)
	if err != nil || len(b) > maxFlash || json.Unmarshal(b, &f) != nil {
		return Flash{}
	}
	f.Message = strings.ToValidUTF8(f.Message, "")
	return f
}
