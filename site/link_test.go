package site_test

import (
	"html/template"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/affordances-go/affordances/site"
)

// The link element goes only where a graph is: {{affordancesLink .}}
// writes it for a page the site renders and not for the application's
// own data (its not-found page), and Site.Link knows the routes that
// have a page.
func TestLink_OnlyWhereAPageHasAGraph(t *testing.T) {
	layout := template.Must(template.New("l").Funcs(site.Funcs()).Parse(`<head>{{affordancesLink .}}</head>`))
	s := site.New(site.Options{Name: "Blog", Logger: slog.New(slog.DiscardHandler)})
	s.Page("/posts/{id}", site.PageOptions{View: layout})
	app := http.NewServeMux()
	app.HandleFunc("GET /tag/{tag}", func(w http.ResponseWriter, r *http.Request) {
		layout.Execute(w, map[string]any{"tag": r.PathValue("tag")})
		w.Write([]byte(s.Link(r)))
	})
	h := s.Wrap(app)
	get := func(path string) string {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest("GET", path, nil))
		return w.Body.String()
	}
	if got := get("/posts/1"); !strings.Contains(got, string(site.LinkTag)) {
		t.Errorf("a page's HTML: %s", got)
	}
	if got := get("/tag/go"); strings.Contains(got, "affordances") {
		t.Errorf("the application's tag page announces a graph: %s", got)
	}
	if s.Link(httptest.NewRequest("GET", "/posts/7?x=1", nil)) != site.LinkTag || s.Link(httptest.NewRequest("GET", "/tag/go", nil)) != "" {
		t.Error("Site.Link does not know its routes")
	}
	var b strings.Builder
	template.Must(template.New("n").Funcs(site.Funcs()).Parse(`{{affordancesLink}}`)).Execute(&b, nil)
	if b.String() != string(site.LinkTag) {
		t.Errorf("without an argument: %s", b.String())
	}
}
