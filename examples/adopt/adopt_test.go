package main

import (
	"net/http"
	"testing"

	"github.com/gorilla/mux"

	"github.com/affordances-go/affordances/examples/adopt/dials"
	"github.com/affordances-go/affordances/internal/doccheck"
	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site"
	"github.com/affordances-go/affordances/site/sitetest"
)

// The fragments of docs/adopt.md that are not in package agents, compiled
// and run here.

func about(w http.ResponseWriter, r *http.Request) { w.Write([]byte("about")) }

func listDials(w http.ResponseWriter, r *http.Request) { w.Write([]byte("dials")) }

// wrapServeMux puts a site in front of net/http's ServeMux.
func wrapServeMux(s *site.Site) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /about", about)
	handler := s.Wrap(mux)
	return handler
}

// wrapGorilla puts a site in front of a gorilla/mux router.
func wrapGorilla(s *site.Site) http.Handler {
	r := mux.NewRouter()
	r.HandleFunc("/dials", listDials).Methods("GET")
	handler := s.Wrap(r)
	return handler
}

// appAuth is an application's middleware that puts its user in the
// context and lets a bad key through without one.
func appAuth(app *dials.App) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if u, _, _ := app.Authenticate(r); u.ID != 0 {
				r = r.WithContext(dials.WithUser(r.Context(), u))
			}
			next.ServeHTTP(w, r)
		})
	}
}

// middlewareInFront is the other way to give the application's code its
// user: its own middleware in front of the site, and Auth reading the
// context. It serves pages, calls and forms; MCP tool calls do not carry
// the HTTP request's context, so a site with MCP uses CallerContext.
func middlewareInFront(app *dials.App, router http.Handler) http.Handler {
	s := site.New(site.Options{
		Auth: site.AuthFunc(func(r *http.Request) (site.Caller, error) {
			_, bearer := site.BearerToken(r)
			u, ok := dials.UserFrom(r.Context())
			switch {
			case !ok && bearer:
				return site.Caller{}, site.ErrBadToken // the middleware found no user for the key
			case !ok:
				return site.Caller{}, nil
			case bearer:
				return site.Caller{Mode: protocol.AuthBearer, SignedIn: true, ID: "key:" + u.Name, Account: u.Name}, nil
			}
			return site.Caller{Mode: protocol.AuthCookie, SignedIn: true, ID: "session:" + u.Name, Account: u.Name}, nil
		}),
	})
	s.Page("/dials", site.PageOptions{Description: "your dials", Load: func(r *site.Request) (*site.State, error) {
		ds, err := app.Store.Dials(r.Context())
		return withEntities(&site.State{}, map[string]any{"dials": ds}), err
	}})
	handler := appAuth(app)(s.Wrap(router))
	return handler
}

func TestSnippets_Routers(t *testing.T) {
	s := site.New(site.Options{})
	s.Page("/about", site.PageOptions{Description: "about us"})
	c := sitetest.New(t, wrapServeMux(s))
	if w := c.Get("/about"); w.Body.String() != "about" || w.Header().Get("Link") != "" {
		t.Errorf("net/http: %q %v", w.Body, w.Header())
	}
	if g := c.Graph("/about"); g.Route != "/about" {
		t.Errorf("graph: %+v", g)
	}
	s2 := site.New(site.Options{})
	s2.Page("/dials", site.PageOptions{Description: "dials"})
	c = sitetest.New(t, wrapGorilla(s2))
	if w := c.Get("/dials"); w.Body.String() != "dials" {
		t.Errorf("gorilla: %q", w.Body)
	}
}

func TestSnippets_MiddlewareInFront(t *testing.T) {
	app := dials.New(dials.NewStore(), []byte("k"))
	c := sitetest.New(t, middlewareInFront(app, app.Handler()))
	c.Bearer = "ann-key"
	if ds := sitetest.Entity[[]dials.Dial](t, c.Graph("/dials"), "dials"); len(ds) != 1 {
		t.Errorf("dials: %+v", ds)
	}
	c.Bearer = "nobody"
	if w := c.Get("/dials", sitetest.Header("Accept", protocol.MediaType)); w.Code != 401 {
		t.Errorf("bad key: %d", w.Code)
	}
}

// TestGuide_GoBlocksAreCompiledCode fails when a Go block of
// docs/adopt.md, or of docs/adopt-frameworks.md that continues it, is not,
// line for line, in the example's code.
func TestGuide_GoBlocksAreCompiledCode(t *testing.T) {
	for guide, blocks := range map[string]int{"../../docs/adopt.md": 6, "../../docs/adopt-frameworks.md": 7} {
		doccheck.BlocksAreIn(t, guide, []string{"go"}, blocks,
			"adopt_test.go", "main.go", "agents/agents.go", "agents/agents_test.go", "dials/app.go", "dials/session.go", "dials/store.go", "recipes/affordances.go", "ginblog/affordances.go", "ginblog/app.go", "echonotes/affordances.go", "echonotes/app.go")
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

// copAroundTheApp puts net/http's CrossOriginProtection around the
// application's routes alone.
func copAroundTheApp(s *site.Site, app http.Handler) http.Handler {
	cop := http.NewCrossOriginProtection()
	handler := s.Wrap(cop.Handler(app))
	return handler
}

// copInFront puts it in front of everything, the site's pages bypassing it.
func copInFront(s *site.Site, app http.Handler) http.Handler {
	cop := http.NewCrossOriginProtection()
	s.BypassCrossOrigin(cop)
	handler := cop.Handler(s.Wrap(app))
	return handler
}

// Both compositions build and serve.
func TestCrossOriginProtection_Compositions(t *testing.T) {
	for _, compose := range []func(*site.Site, http.Handler) http.Handler{copAroundTheApp, copInFront} {
		s := site.New(site.Options{Name: "x"})
		s.Page("/", site.PageOptions{})
		c := sitetest.New(t, compose(s, http.NotFoundHandler()))
		if g := c.Graph("/"); g.Route != "/" {
			t.Errorf("graph %+v", g)
		}
	}
}
