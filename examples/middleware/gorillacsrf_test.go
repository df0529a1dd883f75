package middleware_test

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/gorilla/csrf"

	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site"
)

// The same with gorilla/csrf: the person's forms carry its token and pass
// its check, a form without it is refused with nothing run, and an agent's
// JSON call on the person's cookie is not its business.
func TestMiddleware_GorillaCSRF(t *testing.T) {
	var notes atomic.Int64
	protect := csrf.Protect([]byte("0123456789abcdef0123456789abcdef"), csrf.Secure(false), csrf.FieldName("csrf"),
		csrf.TrustedOrigins([]string{}))
	s := site.New(site.Options{
		Logger: slog.New(slog.DiscardHandler),
		// gorilla/csrf treats every request as HTTPS unless told: the test
		// serves plain http.
		PersonMiddleware: func(h http.Handler) http.Handler {
			p := protect(h)
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { p.ServeHTTP(w, csrf.PlaintextHTTPRequest(r)) })
		},
		FormFields: func(r *http.Request) map[string]string { return map[string]string{"csrf": csrf.Token(r)} },
		Auth: site.AuthFunc(func(r *http.Request) (site.Caller, error) {
			if c, err := r.Cookie("session"); err == nil {
				return site.Caller{ID: "sess-" + c.Value, Mode: protocol.AuthCookie, SignedIn: true}, nil
			}
			return site.Caller{}, nil
		}),
	})
	p := s.Page("/", site.PageOptions{View: page, Load: func(r *site.Request) (*site.State, error) { return &site.State{}, nil }})
	site.Handle(p, site.Action{Name: "addNote", Expose: protocol.ExposeSession},
		func(r *site.Request, in note) (site.Done, error) { notes.Add(1); return site.Done{}, nil })
	srv := httptest.NewServer(s)
	defer srv.Close()
	u, _ := url.Parse(srv.URL)
	person := browser(t)
	person.Jar.SetCookies(u, []*http.Cookie{{Name: "session", Value: "ann"}})
	_, html := do(t, person, mustGet(srv.URL+"/"))
	m := regexp.MustCompile(`name="csrf" value="([^"]+)"`).FindStringSubmatch(html)
	if m == nil {
		t.Fatalf("no gorilla/csrf token in the library's form:\n%s", html)
	}
	post := func(values url.Values) int {
		req, _ := http.NewRequest("POST", srv.URL+"/", strings.NewReader(values.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Origin", srv.URL)
		req.Header.Set("Referer", srv.URL+"/")
		res, _ := do(t, person, req)
		return res.StatusCode
	}
	if code := post(url.Values{"_action": {"addNote"}, "text": {"a"}}); code != http.StatusForbidden || notes.Load() != 0 {
		t.Fatalf("a form without the token: %d, notes %d", code, notes.Load())
	}
	if code := post(url.Values{"_action": {"addNote"}, "text": {"a"}, "csrf": {m[1]}}); code != http.StatusSeeOther || notes.Load() != 1 {
		t.Fatalf("a form with the token: %d, notes %d", code, notes.Load())
	}
	req, _ := http.NewRequest("POST", srv.URL+"/", strings.NewReader(`{"action":"addNote","input":{"text":"b"}}`))
	req.Header.Set("Content-Type", protocol.MediaType)
	req.Header.Set("Origin", srv.URL)
	if res, body := do(t, person, req); res.StatusCode != 200 || notes.Load() != 2 {
		t.Fatalf("an agent's call: %d %s", res.StatusCode, body)
	}
}
