package e2e_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/affordances-go/affordances/conformance"
	"github.com/affordances-go/affordances/examples/shop/shoptest"
)

// The store passes every readiness check, and a site that offers none of
// it fails or warns with a reason for each.
func TestReadiness_TheStorePassesEveryCheck(t *testing.T) {
	cfg, _ := server(t, nil)
	rep, err := conformance.RunChecks(context.Background(), cfg, conformance.Readiness())
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.Results {
		if r.Status != conformance.Pass {
			t.Errorf("%s: %s %s", r.ID, r.Status, r.Detail)
		}
		t.Logf("%s: %s", r.ID, r.Detail)
	}
}

func TestReadiness_ASiteWithoutItSaysWhy(t *testing.T) {
	s := shoptest.Start(t)
	// The store without Markdown, WebMCP, robots.txt, a sitemap or
	// llms.txt, with a catalog whose entry has no queries and a server
	// card that names another endpoint.
	bare := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt", "/sitemap.xml", "/llms.txt":
			http.NotFound(w, r)
			return
		case "/.well-known/ai-catalog.json":
			w.Write([]byte(`{"specVersion":"1.0","entries":[{"identifier":"urn:air:shop","displayName":"Shop","type":"application/mcp-server-card+json","url":"/card"}]}`))
			return
		case "/.well-known/mcp/server-card.json":
			w.Write([]byte(`{"name":"shop/mcp","version":"1","remotes":[{"type":"streamable-http","url":"https://elsewhere.example/mcp"}]}`))
			return
		}
		if strings.Contains(r.Header.Get("Accept"), "text/markdown") {
			r.Header.Set("Accept", "text/html")
		}
		rec := httptest.NewRecorder()
		s.App.ServeHTTP(rec, r)
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		body := rec.Body.Bytes()
		if strings.HasPrefix(rec.Header().Get("Content-Type"), "text/html") {
			body = []byte(strings.NewReplacer(" toolname=", " data-x=", "webmcp.js", "other.js").Replace(string(body)))
			w.Header().Del("Content-Length")
		}
		w.WriteHeader(rec.Code)
		w.Write(body)
	})
	srv := httptest.NewServer(bare)
	defer srv.Close()
	rep, err := conformance.RunChecks(context.Background(), conformance.Config{BaseURL: srv.URL}, conformance.Readiness())
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]conformance.Status{"readiness.index": conformance.Pass, "readiness.link": conformance.Pass,
		"readiness.markdown": conformance.Fail, "readiness.webmcp": conformance.Fail, "readiness.robots": conformance.Fail,
		"readiness.sitemap": conformance.Fail, "readiness.mcp": conformance.Pass,
		"readiness.llms-txt": conformance.Fail, "readiness.ai-catalog": conformance.Fail, "readiness.mcp-server-card": conformance.Fail}
	for _, r := range rep.Results {
		if r.Status != want[r.ID] || r.Detail == "" {
			t.Errorf("%s: %s %q, want %s", r.ID, r.Status, r.Detail, want[r.ID])
		}
	}
}
