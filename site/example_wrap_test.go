package site_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site"
)

// An existing application keeps its own answers: its pages, its REST API
// and other methods on the same URLs; agents get the graph, and Markdown
// when they prefer it.
func ExampleSite_Wrap() {
	app := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, "the application's %s %s", r.Method, r.URL.Path)
	})
	s := site.New(site.Options{Name: "Dials"})
	s.Page("/dials/{id}", site.PageOptions{Description: "one dial", Load: func(r *site.Request) (*site.State, error) {
		return withEntities(&site.State{MD: "# Dial " + r.PathValue("id")}, map[string]any{"id": r.PathValue("id")}), nil
	}})
	h := s.Wrap(app)

	do := func(method, accept string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(method, "/dials/7", nil)
		if accept != "" {
			r.Header.Set("Accept", accept)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	browser := do("GET", "text/html")
	fmt.Println(browser.Body.String(), "| Link:", browser.Header().Get("Link"))
	fmt.Println(do("DELETE", "").Body.String())
	fmt.Println(do("GET", protocol.MediaType).Header().Get("Content-Type"))
	md := do("GET", "text/markdown").Body.String()
	fmt.Println(strings.SplitN(md, "\n", 2)[0])
	// Output:
	// the application's GET /dials/7 | Link: <?affordances=1>; rel="affordances"
	// the application's DELETE /dials/7
	// application/vnd.affordances+json
	// # Dial 7
}
