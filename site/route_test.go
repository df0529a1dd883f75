package site_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/affordances-go/affordances/site"
)

// TestReadGraph_FindsPagesAsTheMuxDoes reads graphs by path, as the MCP
// endpoint and the inspector do, and checks the page each path finds and
// the path values its loader sees: the page a request of the path would
// be served by, with the same precedence and unescaping.
func TestReadGraph_FindsPagesAsTheMuxDoes(t *testing.T) {
	s := site.New(site.Options{})
	for _, pattern := range []string{"/", "/products/{slug}", "/products/new", "/products/{slug}/reviews/", "/files/{rest...}"} {
		s.Page(pattern, site.PageOptions{Load: func(r *site.Request) (*site.State, error) {
			return withEntities(&site.State{}, map[string]any{"seen": map[string]string{
				"pattern": r.Pattern, "slug": r.PathValue("slug"), "rest": r.PathValue("rest")}}), nil
		}})
	}
	s.Mount("/mcp", http.NotFoundHandler())
	hr := httptest.NewRequest("GET", "/", nil)

	for _, tc := range []struct{ path, pattern, slug, rest string }{
		{"/", "/{$}", "", ""},
		{"/?affordances=1", "/{$}", "", ""},
		{"/products/tee", "/products/{slug}", "tee", ""},
		{"/products/new", "/products/new", "", ""}, // the literal wins, as in the mux
		{"/products/a%2Fb%20c", "/products/{slug}", "a/b c", ""},
		{"/products/tee/reviews/", "/products/{slug}/reviews/{$}", "tee", ""},
		{"/files/a/b%20c/d", "/files/{rest...}", "", "a/b c/d"},
		{"/files/", "/files/{rest...}", "", ""},
	} {
		g, err := s.ReadGraph(hr, tc.path, "")
		if err != nil {
			t.Errorf("%s: %v", tc.path, err)
			continue
		}
		seen := g.Entities["seen"].(map[string]string)
		if seen["pattern"] != tc.pattern || seen["slug"] != tc.slug || seen["rest"] != tc.rest {
			t.Errorf("%s: the loader saw %v, want pattern %q slug %q rest %q", tc.path, seen, tc.pattern, tc.slug, tc.rest)
		}
	}
	for _, path := range []string{
		"/nothing",                  // no page
		"/mcp",                      // a mount, not a page
		"/products/tee/extra",       // no page has three segments there
		"/products/../products/tee", // unclean: the mux would redirect it
		"//evil.example/products/tee",
		"https://evil.example/products/tee",
		"products/tee",
		"",
	} {
		if _, err := s.ReadGraph(hr, path, ""); err == nil {
			t.Errorf("%q: read a graph, want not found", path)
		}
	}
}
