package site_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/affordances-go/affordances/internal/wiretest"
	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site"
	"github.com/affordances-go/affordances/site/sitetest"
)

// Routes on the wire and in the index, path values, graph sizes, graph-only pages, a wrapped application and the default authenticator.

func TestSiteIndex_ListsRoutesInBracketFormWithSummaries(t *testing.T) {
	f := newFixture(t)
	w := f.c.Get(protocol.WellKnownPath)
	if w.Code != 200 || w.Header().Get("Content-Type") != protocol.MediaType {
		t.Fatalf("status %d type %q", w.Code, w.Header().Get("Content-Type"))
	}
	wiretest.Valid(t, "site-index.schema.json", w.Body.Bytes())
	wiretest.Golden(t, "site-index.json", w.Body.Bytes())
	if strings.Contains(w.Body.String(), `"available"`) {
		t.Errorf("index summaries carry availability")
	}
}
func TestRoutes_UseTheBracketFormOnTheWire(t *testing.T) {
	s := site.New(site.Options{})
	for pattern, want := range map[string]string{
		"/":                   "/",
		"/products/{slug}":    "/products/[slug]",
		"/files/{path...}":    "/files/[...path]",
		"/a/{x}/b/{y}":        "/a/[x]/b/[y]",
		"/orders/":            "/orders/",
		"/exact/{$}":          "/exact/",
		"/users/{id}/avatar":  "/users/[id]/avatar",
		"/static/page.html":   "/static/page.html",
		"/deep/{a}/{rest...}": "/deep/[a]/[...rest]",
	} {
		if got := s.Page(pattern, site.PageOptions{}).Route(); got != want {
			t.Errorf("%s: route %q, want %q", pattern, got, want)
		}
	}
}
func TestPathValues_ReachTheLoaderAndTheGraphPage(t *testing.T) {
	s := site.New(site.Options{})
	s.Page("/files/{path...}", site.PageOptions{Load: func(r *site.Request) (*site.State, error) {
		return withEntities(&site.State{}, map[string]any{"path": r.PathValue("path")}), nil
	}})
	w := sitetest.New(t, s).Get("/files/a/b%20c.txt?affordances=1")
	var g protocol.Graph
	json.Unmarshal(w.Body.Bytes(), &g)
	if g.Entities["path"] != "a/b c.txt" || g.Page != "/files/a/b%20c.txt" || g.Route != "/files/[...path]" {
		t.Errorf("graph %s", w.Body)
	}
}
func TestGraphSize_WarnsOncePerRoute(t *testing.T) {
	f := newFixture(t)
	for range 3 {
		f.c.Get("/big", sitetest.Header("Accept", agent))
	}
	f.c.Get("/products/tee", sitetest.Header("Accept", agent))
	logs := f.logs.String()
	if n := strings.Count(logs, "token ceiling"); n != 1 {
		t.Fatalf("%d warnings, want 1:\n%s", n, logs)
	}
	if !strings.Contains(logs, "route=/big") || !strings.Contains(logs, "bytes=") {
		t.Errorf("warning lacks route or size: %s", logs)
	}
}
func TestGraphOnlyPage_Answers406ToBrowsers(t *testing.T) {
	f := newFixture(t)
	if w := f.c.Get("/agents/x"); w.Code != http.StatusNotAcceptable {
		t.Errorf("status %d", w.Code)
	}
	if w := f.c.Get("/agents/x", sitetest.Header("Accept", agent)); w.Code != 200 || !w.IsDocument() {
		t.Errorf("agent: status %d", w.Code)
	}
}
func TestWrap_SendsEverythingElseToTheApplication(t *testing.T) {
	s := site.New(site.Options{})
	s.Page("/products/{slug}", site.PageOptions{Description: "product",
		Load: func(r *site.Request) (*site.State, error) {
			return withEntities(&site.State{}, map[string]any{"slug": r.PathValue("slug")}), nil
		}})
	s.Page("/own", site.PageOptions{View: productView, Load: func(r *site.Request) (*site.State, error) {
		return withEntities(&site.State{}, map[string]any{"product": product{Name: "Own view"}}), nil
	}})
	app := http.NewServeMux()
	app.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("app:" + r.URL.Path))
	})
	c := sitetest.New(t, s.Wrap(app))

	// A browser on a page with a graph: the app renders it, the site adds
	// Vary and Link.
	w := c.Get("/products/tee")
	if w.Body.String() != "app:/products/tee" || w.Header().Get("Vary") != "Accept" || w.Header().Get("Link") == "" {
		t.Errorf("browser on page: %q %v", w.Body, w.Header())
	}
	// An agent on the same URL gets the graph.
	w = c.Get("/products/tee", sitetest.Header("Accept", agent))
	if !w.IsDocument() || !strings.Contains(w.Body.String(), `"slug":"tee"`) {
		t.Errorf("agent on page: %s", w.Body)
	}
	// A page with its own view is rendered by the site.
	if w = c.Get("/own"); !strings.Contains(w.Body.String(), "Own view") {
		t.Errorf("own view: %s", w.Body)
	}
	// Paths without a graph: the app for browsers, as it answered, with
	// neither Link nor Vary (an agent's not_found there is never stored).
	w = c.Get("/about")
	if w.Body.String() != "app:/about" || w.Header().Get("Link") != "" || w.Header().Get("Vary") != "" {
		t.Errorf("browser off page: %q %v", w.Body, w.Header())
	}
	if w = c.Get("/about", sitetest.Header("Accept", agent)); w.Code != 404 || !w.IsDocument() {
		t.Errorf("agent off page: %d %s", w.Code, w.Body)
	}
	// The index is the site's.
	if w = c.Get(protocol.WellKnownPath); !strings.Contains(w.Body.String(), `"/products/[slug]"`) {
		t.Errorf("index: %s", w.Body)
	}
}
func TestDefaultAuth_AcceptsNoBearerToken(t *testing.T) {
	s := site.New(site.Options{})
	s.Page("/", site.PageOptions{})
	w := sitetest.New(t, s).Get("/", sitetest.Header("Accept", agent, "Authorization", "Bearer anything"))
	if w.Code != 401 {
		t.Errorf("status %d", w.Code)
	}
}
