package agents_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/affordances-go/affordances/conformance"
	"github.com/affordances-go/affordances/examples/adopt/agents"
	"github.com/affordances-go/affordances/examples/adopt/dials"
	"github.com/affordances-go/affordances/site"
	"github.com/affordances-go/affordances/site/sitetest"
)

var secret = []byte("test secret")

// newApp is the application on a fresh store, with a clock that does not
// move, so that two instances sign the same session cookies.
func newApp() *dials.App {
	app := dials.New(dials.NewStore(), secret)
	app.Sessions.Now = func() time.Time { return time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC) }
	return app
}

// annCookie is ann's session cookie, as the application signs it.
func annCookie() string { c := newApp().Sessions.Cookie(1); return c.Name + "=" + c.Value }

// step is one request of an existing client of the application: a
// browser, a form, the REST API's command line.
type step struct {
	method, path, body string
	header             []string
}

func form(v url.Values) string { return v.Encode() }

const formType = "application/x-www-form-urlencoded"

// script is a day of the application's existing clients, none of them an
// agent.
func script() []step {
	cookie, key := annCookie(), "Bearer ann-key"
	return []step{
		{"GET", "/", "", nil},
		{"GET", "/login", "", nil},
		{"POST", "/login", form(url.Values{"email": {"ann@example.com"}, "password": {"ann-password"}}), []string{"Content-Type", formType}},
		{"POST", "/login", form(url.Values{"email": {"ann@example.com"}, "password": {"wrong"}}), []string{"Content-Type", formType}},
		{"GET", "/dials", "", []string{"Cookie", cookie}},
		{"GET", "/dials", "", nil}, // signed out: to the sign-in page
		{"GET", "/dials", "", []string{"Accept", "application/json", "Authorization", key}},
		{"GET", "/dials", "", []string{"Accept", "application/json", "Authorization", "Bearer nobody"}},
		{"POST", "/dials", `{"name":"Hall"}`, []string{"Content-Type", "application/json", "Authorization", key}},
		{"POST", "/dials", `{"name":""}`, []string{"Content-Type", "application/json", "Authorization", key}},
		{"POST", "/dials", form(url.Values{"name": {"Porch"}}), []string{"Content-Type", formType, "Cookie", cookie}},
		{"GET", "/dials", "", []string{"Cookie", cookie + "; dials_flash=Created_Porch."}},
		{"GET", "/dials/1", "", []string{"Cookie", cookie}},
		{"GET", "/dials/1", "", []string{"Accept", "application/json", "Authorization", key}},
		{"GET", "/dials/2", "", []string{"Accept", "application/json", "Authorization", key}}, // Bob's
		{"GET", "/dials/99", "", []string{"Cookie", cookie}},
		{"PATCH", "/dials/1", `{"value":55}`, []string{"Content-Type", "application/json", "Authorization", key}},
		{"PUT", "/dials/1", `{"name":"Kitchen light"}`, []string{"Content-Type", "application/json", "Authorization", key}},
		{"POST", "/dials/1", form(url.Values{"_method": {"PATCH"}, "value": {"70"}}), []string{"Content-Type", formType, "Cookie", cookie}},
		{"POST", "/dials/1", form(url.Values{"_method": {"PATCH"}, "value": {"700"}}), []string{"Content-Type", formType, "Cookie", cookie}},
		{"DELETE", "/dials/3", "", []string{"Authorization", key}},
		{"POST", "/dials/4", form(url.Values{"_method": {"DELETE"}}), []string{"Content-Type", formType, "Cookie", cookie}},
		{"DELETE", "/dials/4", "", []string{"Authorization", key}},
		{"OPTIONS", "/dials/1", "", nil},
		{"GET", "/dials", "", []string{"Accept", "application/json", "Authorization", key}},
		{"POST", "/logout", "", []string{"Cookie", cookie}},
		{"GET", "/metrics", "", nil},
	}
}

func serve(h http.Handler, s step) *httptest.ResponseRecorder {
	r := httptest.NewRequest(s.method, "http://dials.example"+s.path, strings.NewReader(s.body))
	for i := 0; i < len(s.header); i += 2 {
		r.Header.Set(s.header[i], s.header[i+1])
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

// The application's clients see no difference: every status, body and
// header is the same with Affordances in front, but for the Vary: Accept
// and Link headers it adds to the pages that now have a graph.
func TestAdopt_TheApplicationAnswersExactlyAsBefore(t *testing.T) {
	plain, adopted := newApp().Handler(), agents.Adopt(newApp())
	links := 0
	for _, s := range script() {
		before, after := serve(plain, s), serve(adopted, s)
		name := s.method + " " + s.path
		// The one change to the HTML: the link element in the head.
		body := strings.Replace(after.Body.String(), string(site.LinkTag), "", 1)
		if before.Code != after.Code || before.Body.String() != body {
			t.Errorf("%s: before %d %q\nafter %d %q", name, before.Code, before.Body, after.Code, after.Body)
		}
		hb, ha := before.Header().Clone(), after.Header().Clone()
		if ha.Get("Link") != "" {
			links++
			if !strings.HasPrefix(ha.Get("Content-Type"), "text/html") || after.Code != 200 {
				t.Errorf("%s: Link on a %d %s answer", name, after.Code, ha.Get("Content-Type"))
			}
		}
		for _, h := range []string{"Vary", "Link"} {
			hb.Del(h)
			ha.Del(h)
		}
		if !sameHeader(hb, ha) {
			t.Errorf("%s: headers before %v\nafter %v", name, hb, ha)
		}
	}
	if links < 3 {
		t.Errorf("%d HTML pages announced their graph, want the dials pages", links)
	}
}

func sameHeader(a, b http.Header) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if !slices.Equal(v, b[k]) {
			return false
		}
	}
	return true
}

// Agents, on the same URLs with the same API key or session, get graphs
// and run actions that go through the application's own services.
func TestAdopt_AgentsGetGraphsAndActions(t *testing.T) {
	app := newApp()
	h := agents.Adopt(app)
	c := sitetest.New(t, h)
	c.Bearer = "ann-key"
	c.CheckDeltas = true
	g := c.Graph("/dials")
	if ds := sitetest.Entity[[]dials.Dial](t, g, "dials"); len(ds) != 1 || ds[0].Name != "Kitchen" {
		t.Errorf("dials: %+v", ds)
	}
	if w := c.Call("/dials", "createDial", map[string]any{"name": "Hall"}); w.ErrorCode() != "ok" || w.Delta().Redirect != "/dials/3" {
		t.Fatalf("createDial: %d %s", w.Code, w.Body)
	}
	// The REST API sees what the agent did.
	rest := serve(h, step{"GET", "/dials", "", []string{"Accept", "application/json", "Authorization", "Bearer ann-key"}})
	if !strings.Contains(rest.Body.String(), `"name":"Hall"`) {
		t.Errorf("REST after the call: %s", rest.Body)
	}
	if w := c.Call("/dials/1", "turnDial", map[string]any{"value": 101}); w.ErrorCode() != "invalid_input" {
		t.Errorf("turnDial 101: %s", w.Body)
	}
	if w := c.Call("/dials/1", "turnDial", map[string]any{"value": 90}); w.Delta().Message != "Kitchen is at 90." {
		t.Errorf("turnDial: %s", w.Body)
	}
	// Bob's dial is not ann's page.
	if w := c.Call("/dials/2", "turnDial", map[string]any{"value": 1}); w.Code != 404 {
		t.Errorf("Bob's dial: %d %s", w.Code, w.Body)
	}
	// Deleting is a confirm action: nothing runs without the person.
	if w := c.Call("/dials/3", "deleteDial", map[string]any{}); w.ErrorCode() != "confirm_required" {
		t.Errorf("deleteDial: %s", w.Body)
	}
	c.CheckDeltas = false // the page is gone after it
	w := c.Call("/dials/3", "deleteDial", map[string]any{}, sitetest.Confirm())
	if d := w.Delta(); !d.OK || d.Redirect != "/dials" || !slices.Contains(d.ActionsRemoved, "deleteDial") {
		t.Errorf("deleteDial confirmed: %s", w.Body)
	}
	// A bad key is the protocol's 401 to an agent.
	c.Bearer = "nobody"
	if w := c.Call("/dials", "createDial", map[string]any{"name": "x"}); w.Code != 401 || w.ErrorCode() != "unauthorized" {
		t.Errorf("bad key: %d %s", w.Code, w.Body)
	}
}

// What the graphs hold, the person sees on the pages.
func TestAdopt_GraphsShowWhatThePagesShow(t *testing.T) {
	c := sitetest.New(t, agents.Adopt(newApp()))
	name, value, _ := strings.Cut(annCookie(), "=")
	c.SetCookie(name, value)
	c.CheckNoLeaks("/dials")
	c.CheckNoLeaks("/dials/1")
}

// afford check --strict passes with the person's session cookie.
func TestAdopt_AffordCheckStrictPasses(t *testing.T) {
	srv := httptest.NewServer(agents.Adopt(newApp()))
	defer srv.Close()
	rep, err := conformance.Run(context.Background(), conformance.Config{BaseURL: srv.URL, Cookie: annCookie()})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.Results {
		if r.Status == conformance.Fail {
			t.Errorf("%s (%s): %s", r.ID, r.Level, r.Detail)
		}
	}
	if rep.Passed < 20 {
		t.Errorf("only %d checks passed", rep.Passed)
	}
	t.Logf("afford check: %d passed, %d failed, %d warnings, %d skipped", rep.Passed, rep.Failed, rep.Warnings, rep.Skipped)
}
