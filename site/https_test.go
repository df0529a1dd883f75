package site_test

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site"
)

// tlsProxySite is a site behind a proxy that ends TLS (127.0.0.1), whose
// action sets a session cookie as a store's sign-in does.
func tlsProxySite(opts site.Options) *site.Site {
	opts.Auth = testAuth
	opts.Security.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}
	opts.Logger = slog.New(slog.DiscardHandler)
	s := site.New(opts)
	p := s.Page("/login", site.PageOptions{View: shopView, Load: func(r *site.Request) (*site.State, error) { return &site.State{}, nil }})
	site.Handle(p, site.Action{Name: "signIn", Expose: protocol.ExposePublic},
		func(r *site.Request, in struct{}) (site.Done, error) {
			r.SetCookie(&http.Cookie{Name: "session", Value: "s1", Path: "/", HttpOnly: true})
			return site.Done{Message: "Signed in."}, nil
		})
	return s
}

// post sends the sign-in form from remote, with X-Forwarded-Proto proto
// (none when empty) and the Origin origin.
func post(s http.Handler, remote, proto, origin string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(http.MethodPost, "http://shop.example/login", strings.NewReader(url.Values{"_action": {"signIn"}}.Encode()))
	r.RemoteAddr = remote
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	r.Header.Set("Origin", origin)
	if proto != "" {
		r.Header.Set("X-Forwarded-Proto", proto)
	}
	w := httptest.NewRecorder()
	s.ServeHTTP(w, r)
	return w
}

// Behind a trusted proxy that ends TLS, every cookie is Secure, the
// https Origin is the site's own, and HSTS is sent when asked for;
// X-Forwarded-Proto from anyone else is not believed.
func TestHTTPS_BehindATrustedProxy(t *testing.T) {
	s := tlsProxySite(site.Options{Security: site.SecurityOptions{HSTS: 365 * 24 * time.Hour}})
	w := post(s, "127.0.0.1:5000", "https", "https://shop.example")
	if w.Code != http.StatusSeeOther {
		t.Fatalf("the form behind the TLS proxy: %d %s", w.Code, w.Body)
	}
	cookies := w.Result().Cookies()
	if len(cookies) < 2 {
		t.Fatalf("cookies: %v", w.Header()["Set-Cookie"])
	}
	for _, c := range cookies {
		if !c.Secure {
			t.Errorf("cookie %s is not Secure behind TLS: %v", c.Name, w.Header()["Set-Cookie"])
		}
	}
	if got := w.Header().Get("Strict-Transport-Security"); got != "max-age=31536000" {
		t.Errorf("HSTS: %q", got)
	}

	// Anyone else's X-Forwarded-Proto is a lie it may tell: plain http.
	w = post(s, "203.0.113.9:5000", "https", "http://shop.example")
	if w.Code != http.StatusSeeOther {
		t.Fatalf("plain http: %d", w.Code)
	}
	for _, c := range w.Result().Cookies() {
		if c.Secure {
			t.Errorf("cookie %s Secure on plain http from an untrusted address", c.Name)
		}
	}
	if w.Header().Get("Strict-Transport-Security") != "" {
		t.Error("HSTS over plain http")
	}
	if w = post(s, "203.0.113.9:5000", "https", "https://shop.example"); w.Code != http.StatusForbidden {
		t.Errorf("an https Origin on plain http, from an untrusted address: %d", w.Code)
	}
}

// A site whose configured origins are https sets Secure cookies whatever
// the proxy says; HSTS stays off unless asked for.
func TestHTTPS_ConfiguredOrigin(t *testing.T) {
	s := tlsProxySite(site.Options{Security: site.SecurityOptions{Origins: []string{"https://shop.example"}}})
	w := post(s, "127.0.0.1:5000", "", "https://shop.example")
	if w.Code != http.StatusSeeOther {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
	for _, c := range w.Result().Cookies() {
		if !c.Secure {
			t.Errorf("cookie %s is not Secure with an https origin", c.Name)
		}
	}
	if w.Header().Get("Strict-Transport-Security") != "" {
		t.Error("HSTS without the option")
	}
}
