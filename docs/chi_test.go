package docs_test

import (
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"

	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site"
	"github.com/affordances-go/affordances/site/sitetest"
)

// chiSite is a small site for the chi examples: a product page with a
// path parameter and one action.
func chiSite() *site.Site {
	s := site.New(site.Options{Name: "Shop", Logger: slog.New(slog.DiscardHandler)})
	p := s.Page("/products/{slug}", site.PageOptions{Load: func(r *site.Request) (*site.State, error) {
		if r.PathValue("slug") != "tee" {
			return nil, site.ErrNotFound
		}
		return withEntities(&site.State{}, map[string]any{"product": r.PathValue("slug")}), nil
	}})
	site.Handle(p, site.Action{Name: "addToCart", Description: "Add", Expose: protocol.ExposePublic},
		func(r *site.Request, in struct{}) (site.Done, error) { return site.Done{Message: "added"}, nil })
	return s
}

// requestID stands for any chi middleware: it runs before the site.
func requestID(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Request-Id", "r1")
		next.ServeHTTP(w, r)
	})
}

// siteUnderChi mounts a site in a chi router: chi's middleware runs first,
// chi's own routes keep their place, every other path goes to the site.
func siteUnderChi(s *site.Site) http.Handler {
	r := chi.NewRouter()
	r.Use(requestID)
	r.Get("/health", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok")) })
	r.Mount("/", s)
	return r
}

// chiUnderSite wraps an existing chi router: the site answers its pages,
// the router everything else, with its own path parameters and 404.
func chiUnderSite(s *site.Site) http.Handler {
	r := chi.NewRouter()
	r.Use(requestID)
	r.Get("/users/{id}", func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("user " + chi.URLParam(r, "id")))
	})
	r.NotFound(func(w http.ResponseWriter, r *http.Request) { http.Error(w, "chi: not found", http.StatusNotFound) })
	return s.Wrap(r)
}

func TestChi_SiteMountedInARouter(t *testing.T) {
	c := sitetest.New(t, siteUnderChi(chiSite()))
	res := c.Get("/products/tee", sitetest.Header("Accept", protocol.MediaType))
	if res.Code != 200 || res.Header().Get("X-Request-Id") != "r1" || res.Graph().Page != "/products/tee" {
		t.Errorf("graph through chi: %d %v %s", res.Code, res.Header(), res.Body)
	}
	if d := c.Call("/products/tee", "addToCart", nil).Delta(); !d.OK {
		t.Errorf("call through chi: %+v", d)
	}
	if res := c.Get("/products/sock", sitetest.Header("Accept", protocol.MediaType)); res.Code != 404 || res.ErrorCode() != "not_found" {
		t.Errorf("an unknown product: %d %s", res.Code, res.Body)
	}
	if res := c.Get("/health"); res.Body.String() != "ok" {
		t.Errorf("chi's own route: %s", res.Body)
	}
}

func TestChi_RouterWrappedBySite(t *testing.T) {
	c := sitetest.New(t, chiUnderSite(chiSite()))
	if g := c.Graph("/products/tee"); g.Entities["product"] != "tee" {
		t.Errorf("graph: %+v", g)
	}
	if res := c.Get("/users/7"); res.Body.String() != "user 7" || res.Header().Get("X-Request-Id") != "r1" {
		t.Errorf("chi's route and middleware: %s %v", res.Body, res.Header())
	}
	if res := c.Get("/nowhere"); res.Code != 404 || !strings.Contains(res.Body.String(), "chi: not found") {
		t.Errorf("a browser's 404 is chi's: %d %s", res.Code, res.Body)
	}
	if res := c.Get("/nowhere", sitetest.Header("Accept", protocol.MediaType)); res.Code != 404 || res.ErrorCode() != "not_found" {
		t.Errorf("an agent's 404 is a not_found delta: %d %s", res.Code, res.Body)
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
