package conformance_test

import (
	"context"
	"html/template"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/affordances-go/affordances/conformance"
	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site"
)

// members is a site whose every page needs sign-in: without the session
// cookie a browser is sent to a sign-in page off the site's graphs, and an
// agent gets no graph.
func members(t *testing.T) *httptest.Server {
	t.Helper()
	s := site.New(site.Options{Auth: site.AuthFunc(func(r *http.Request) (site.Caller, error) {
		if c, err := r.Cookie("sid"); err == nil && c.Value == "member" {
			return site.Caller{Mode: protocol.AuthCookie, SignedIn: true, ID: "s1", Account: "m1"}, nil
		}
		return site.Caller{Mode: protocol.AuthCookie}, nil
	})})
	view := template.Must(template.New("p").Funcs(site.Funcs()).Parse(
		`<!doctype html><html><head><title>Dials</title>{{affordancesLink}}</head><body><h1>Dials</h1></body></html>`))
	s.Page("/", site.PageOptions{Description: "the member's dials", View: view, Load: func(r *site.Request) (*site.State, error) {
		if !r.Caller.SignedIn {
			return nil, site.ErrNotFound
		}
		return withEntities(&site.State{}, map[string]any{"dials": []string{"kitchen"}}), nil
	}})
	members := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if c, err := r.Cookie("sid"); err != nil || c.Value != "member" {
			http.Redirect(w, r, "/signin", http.StatusSeeOther)
			return
		}
		s.ServeHTTP(w, r)
	})
	mux := http.NewServeMux()
	mux.Handle("/", members)
	mux.Handle(protocol.WellKnownPath, s)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// With a session cookie, the checker sees the pages of a site that shows
// nothing without one: the discovery checks that read HTML run.
func TestCheck_SendsTheCookieOnEveryRequest(t *testing.T) {
	srv := members(t)
	rep, err := conformance.Run(context.Background(), conformance.Config{BaseURL: srv.URL, Cookie: "sid=member"})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Pages) == 0 {
		t.Fatalf("no page found: %+v", rep.Results)
	}
	for _, r := range rep.Results {
		switch r.ID {
		case "headers.html-vary", "discovery.link-header", "discovery.link-element":
			if r.Status != conformance.Pass {
				t.Errorf("%s: %s %s", r.ID, r.Status, r.Detail)
			}
		}
	}
}

// withEntities stores each entity of m in st under its name, as a page's
// keys would.
func withEntities(st *site.State, m map[string]any) *site.State {
	for name, v := range m {
		site.NewKey[any](name).Set(st, v)
	}
	return st
}
