package site_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"

	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site/sitetest"
)

// BenchmarkGraphGET compares a graph GET through the site with a
// hand-written ServeMux handler that loads the same state and encodes the
// same graph (descriptors prepared once, availability computed inline). The
// ratio of the two is the library's overhead:
//
//	go test ./site -run '^$' -bench GraphGET -benchmem -count 6 | benchstat -col /impl -
func BenchmarkGraphGET(b *testing.B) {
	f := newFixture(b)
	// The baseline's graph must be byte-for-byte the site's.
	want := f.c.Get("/products/tee", sitetest.Header("Accept", agent)).Body.String()
	var g protocol.Graph
	if err := json.Unmarshal([]byte(want), &g); err != nil {
		b.Fatal(err)
	}
	descriptors := g.Actions
	load := func(slug string) map[string]any {
		return map[string]any{"product": product{Slug: slug, Name: "Heavyweight tee", Price: 2900, Stock: f.teeStock}}
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /products/{slug}", func(w http.ResponseWriter, r *http.Request) {
		ent := load(r.PathValue("slug"))
		acts := make([]protocol.ActionDescriptor, len(descriptors))
		copy(acts, descriptors)
		acts[0].Available = ent["product"].(product).Stock > 0
		body, err := json.Marshal(protocol.Graph{V: "0", Page: r.URL.Path, Route: "/products/[slug]",
			Entities: ent, Actions: acts, Nav: g.Nav, MD: g.MD})
		if err != nil {
			http.Error(w, err.Error(), 500)
			return
		}
		h := w.Header()
		h.Set("Content-Type", protocol.MediaType)
		h.Set("Vary", "Accept")
		h.Set("Cache-Control", "private, no-store")
		h.Set("Content-Length", strconv.Itoa(len(body)))
		w.Write(body)
	})
	if got := sitetest.New(b, mux).Get("/products/tee").Body.String(); got != want {
		b.Fatalf("baseline differs from the site:\n%s\n%s", got, want)
	}
	for _, c := range []struct {
		name string
		h    http.Handler
	}{{"impl=nethttp", mux}, {"impl=site", f.site}} {
		b.Run(c.name, func(b *testing.B) {
			r := httptest.NewRequest("GET", "/products/tee", nil)
			r.Header.Set("Accept", agent)
			b.ReportAllocs()
			for b.Loop() {
				w := httptest.NewRecorder()
				c.h.ServeHTTP(w, r)
				if w.Code != 200 {
					b.Fatal(w.Code)
				}
			}
		})
	}
}
