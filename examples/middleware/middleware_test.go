package middleware_test

import (
	"html/template"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/alexedwards/scs/v2"
	"github.com/gorilla/sessions"
	"github.com/justinas/nosurf"

	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site"
)

// app is the application: an scs session manager, nosurf, and a site whose
// sign-in and notes use them.
type app struct {
	sessions *scs.SessionManager
	cookies  *sessions.CookieStore
	notes    atomic.Int64
	srv      *httptest.Server
}

type signIn struct {
	Name string `json:"name" minLength:"1" maxLength:"40"`
}

type note struct {
	Text string `json:"text" minLength:"1" maxLength:"200"`
}

var page = template.Must(template.New("p").Funcs(site.Funcs()).Parse(
	`<html><head>{{affordancesLink}}</head><body>{{with .Error}}<p class="error">{{.Message}}</p>{{end}}{{actionForm . "signIn"}}{{actionForm . "addNote"}}{{actionForm . "remember"}}</body></html>`))

func newApp(t *testing.T) *app {
	a := &app{sessions: scs.New(), cookies: sessions.NewCookieStore([]byte("0123456789abcdef0123456789abcdef"))}
	csrf := func(h http.Handler) http.Handler {
		n := nosurf.New(h)
		n.SetIsTLSFunc(func(r *http.Request) bool { return r.TLS != nil }) // the test serves plain http; nosurf assumes https
		n.SetFailureHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "CSRF token refused: "+fmtReason(nosurf.Reason(r)), http.StatusBadRequest)
		}))
		return n
	}
	s := site.New(site.Options{
		Logger:           slog.New(slog.DiscardHandler),
		Middleware:       a.sessions.LoadAndSave,
		PersonMiddleware: csrf,
		FormFields:       func(r *http.Request) map[string]string { return map[string]string{"csrf_token": nosurf.Token(r)} },
		// The app's own sessions, read from the context scs filled.
		Auth: site.AuthFunc(func(r *http.Request) (site.Caller, error) {
			if _, err := r.Cookie(a.sessions.Cookie.Name); err != nil {
				return site.Caller{}, nil
			}
			user := a.sessions.GetString(r.Context(), "user")
			return site.Caller{ID: "sess-" + user, Account: user, Mode: protocol.AuthCookie, SignedIn: user != "", User: user}, nil
		}),
	})
	p := s.Page("/", site.PageOptions{View: page, Load: func(r *site.Request) (*site.State, error) { return &site.State{}, nil }})
	site.Handle(p, site.Action{Name: "signIn", Expose: protocol.ExposePublic, NeedsCookies: true},
		func(r *site.Request, in signIn) (site.Done, error) {
			// scs's own way: a new token, then the user, written by its
			// LoadAndSave as the app writes it.
			if err := a.sessions.RenewToken(r.Context()); err != nil {
				return site.Done{}, err
			}
			a.sessions.Put(r.Context(), "user", in.Name)
			return site.Done{Message: "Signed in."}, nil
		})
	site.Handle(p, site.Action{Name: "addNote", Expose: protocol.ExposeSession},
		func(r *site.Request, in note) (site.Done, error) {
			a.notes.Add(1)
			return site.Done{Message: "Noted."}, nil
		})
	site.Handle(p, site.Action{Name: "remember", Expose: protocol.ExposePublic},
		func(r *site.Request, in struct{}) (site.Done, error) {
			// gorilla/sessions writes its cookie on a ResponseWriter.
			sess, _ := a.cookies.Get(r.Request, "prefs")
			sess.Values["theme"] = "dark"
			return site.Done{Message: "Remembered."}, sess.Save(r.Request, r.ResponseWriter())
		})
	a.srv = httptest.NewServer(s)
	t.Cleanup(a.srv.Close)
	return a
}

// browser is a person's browser: a cookie jar, forms posted with the
// site's Origin as a navigation.
func browser(t *testing.T) *http.Client {
	jar, _ := cookiejar.New(nil)
	return &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

func do(t *testing.T, c *http.Client, req *http.Request) (*http.Response, string) {
	t.Helper()
	res, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res, string(b)
}

func (a *app) form(t *testing.T, c *http.Client, values url.Values) (*http.Response, string) {
	req, _ := http.NewRequest("POST", a.srv.URL+"/", strings.NewReader(values.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", a.srv.URL)
	req.Header.Set("Sec-Fetch-Mode", "navigate")
	req.Header.Set("Sec-Fetch-User", "?1")
	return do(t, c, req)
}

func (a *app) call(t *testing.T, c *http.Client, body string) (*http.Response, string) {
	req, _ := http.NewRequest("POST", a.srv.URL+"/", strings.NewReader(body))
	req.Header.Set("Content-Type", protocol.MediaType)
	req.Header.Set("Origin", a.srv.URL)
	return do(t, c, req)
}

var tokenField = regexp.MustCompile(`name="csrf_token" value="([^"]+)"`)

// The person's forms carry the app's CSRF token and pass its check; a
// form without it is refused by the app's middleware with nothing run;
// the session the sign-in writes through scs is the app's own; agents'
// JSON calls on the same session are not broken by the CSRF middleware.
func TestMiddleware_SessionsInTheContextAndCSRF(t *testing.T) {
	a := newApp(t)
	person := browser(t)
	_, html := do(t, person, mustGet(a.srv.URL+"/"))
	m := tokenField.FindStringSubmatch(html)
	if m == nil {
		t.Fatalf("the library's form carries no CSRF token:\n%s", html)
	}
	if res, body := a.form(t, person, url.Values{"_action": {"signIn"}, "name": {"ann"}}); res.StatusCode != 400 || !strings.Contains(body, "CSRF") {
		t.Fatalf("a form without the token: %d %s", res.StatusCode, body)
	}
	_, html = do(t, person, mustGet(a.srv.URL+"/")) // the page as the person has it now
	m = tokenField.FindStringSubmatch(html)
	res, body := a.form(t, person, url.Values{"_action": {"signIn"}, "name": {"ann"}, "csrf_token": {m[1]}})
	if res.StatusCode != 303 {
		t.Fatalf("the sign-in form with the token: %d %s", res.StatusCode, body)
	}
	var session string
	for _, c := range res.Cookies() {
		if c.Name == a.sessions.Cookie.Name {
			session = c.Value
		}
	}
	if session == "" {
		t.Fatalf("scs wrote no session cookie: %v", res.Header["Set-Cookie"])
	}
	// An agent on the person's session: JSON, no CSRF token, not refused.
	if res, body := a.call(t, person, `{"action":"addNote","input":{"text":"milk"}}`); res.StatusCode != 200 || a.notes.Load() != 1 {
		t.Fatalf("an agent's call on the session: %d %s", res.StatusCode, body)
	}
	// A form for addNote without the token is the app's to refuse.
	if res, _ := a.form(t, person, url.Values{"_action": {"addNote"}, "text": {"eggs"}}); res.StatusCode != 400 || a.notes.Load() != 1 {
		t.Fatalf("a note form without the token: %d, notes %d", res.StatusCode, a.notes.Load())
	}
	// An agent signs in with JSON: scs's commit writes the cookie.
	agent := browser(t)
	res, body = a.call(t, agent, `{"action":"signIn","input":{"name":"bea"}}`)
	if res.StatusCode != 200 || !strings.Contains(strings.Join(res.Header["Set-Cookie"], " "), a.sessions.Cookie.Name+"=") {
		t.Fatalf("an agent's sign-in: %d %s %v", res.StatusCode, body, res.Header["Set-Cookie"])
	}
	if res, body := a.call(t, agent, `{"action":"addNote","input":{"text":"bread"}}`); res.StatusCode != 200 || a.notes.Load() != 2 {
		t.Fatalf("the agent's call after its sign-in: %d %s", res.StatusCode, body)
	}
	// gorilla/sessions saves on the action's ResponseWriter.
	if res, body := a.call(t, agent, `{"action":"remember"}`); res.StatusCode != 200 || !strings.Contains(strings.Join(res.Header["Set-Cookie"], " "), "prefs=") {
		t.Fatalf("gorilla/sessions: %d %s %v", res.StatusCode, body, res.Header["Set-Cookie"])
	}
}

func mustGet(u string) *http.Request {
	req, _ := http.NewRequest("GET", u, nil)
	return req
}

func fmtReason(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
