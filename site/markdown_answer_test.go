package site_test

import (
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/affordances-go/affordances/internal/wiretest"
	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site/sitetest"
)

// Which representation each Accept gets: the graph whenever the protocol's
// media type is asked for, Markdown only when it is preferred to HTML,
// HTML otherwise.
func TestNegotiation_GraphMarkdownOrHTML(t *testing.T) {
	f := newFixture(t)
	for _, c := range []struct{ accept, want string }{
		{"text/markdown", "markdown"},
		{"text/markdown, text/html", "markdown"},
		{"text/markdown;q=0.9, text/html", "html"},
		{"text/html, text/markdown", "html"},
		{"text/html;q=0.5, text/markdown", "markdown"},
		{"text/markdown, */*;q=0.8", "markdown"},
		{"text/markdown;q=0", "html"},
		{"text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8", "html"},
		{"*/*", "html"},
		{"", "html"},
		{protocol.MediaType + ", text/markdown", "graph"},
		{"text/markdown, " + protocol.MediaType + ";q=0.1", "graph"},
	} {
		w := f.c.Get("/products/tee", sitetest.Header("Accept", c.accept))
		ct := w.Header().Get("Content-Type")
		got := map[bool]string{true: "graph", false: "html"}[w.IsDocument()]
		if strings.HasPrefix(ct, "text/markdown") {
			got = "markdown"
		}
		if got != c.want || w.Header().Get("Vary") != "Accept" {
			t.Errorf("Accept %q: got %s (%s), Vary %q", c.accept, got, ct, w.Header().Get("Vary"))
		}
	}
	// The query alias asks for the graph, whatever Accept says.
	if w := f.c.Get("/products/tee?affordances=1", sitetest.Header("Accept", "text/markdown")); !w.IsDocument() {
		t.Errorf("?affordances=1 with Markdown accepted: %s", w.Header().Get("Content-Type"))
	}
}

func TestMarkdown_ThePageItsActionsAndLinks(t *testing.T) {
	f := newFixture(t)
	w := f.c.Get("/products/tee", sitetest.Header("Accept", "text/markdown"))
	h := w.Header()
	if w.Code != 200 || h.Get("Content-Type") != "text/markdown; charset=utf-8" || h.Get("X-Content-Type-Options") != "nosniff" {
		t.Fatalf("%d %v", w.Code, h)
	}
	if n, err := strconv.Atoi(h.Get("X-Markdown-Tokens")); err != nil || n != w.Body.Len()/4 {
		t.Errorf("X-Markdown-Tokens %q for %d bytes", h.Get("X-Markdown-Tokens"), w.Body.Len())
	}
	if h.Get("Link") != "" {
		t.Errorf("Markdown advertises: %q", h.Get("Link"))
	}
	wiretest.GoldenText(t, "page-anonymous.md", w.Body.Bytes())
	// A signed-in caller's Markdown is personal: never stored by a cache.
	w = f.c.Get("/products/tee", sitetest.Header("Accept", "text/markdown", "Authorization", "Bearer good"))
	if w.Header().Get("Cache-Control") != "private, no-store" {
		t.Errorf("signed in: Cache-Control %q", w.Header().Get("Cache-Control"))
	}
	wiretest.GoldenText(t, "page-signed-in.md", w.Body.Bytes())
	// A reader whose actions are tools (the WebMCP script's readPage):
	// the same page without the inputs and the POST line.
	w = f.c.Get("/products/tee", sitetest.Header("Accept", "text/markdown; actions=tools"))
	wiretest.GoldenText(t, "page-for-tools.md", w.Body.Bytes())
	if body := w.Body.String(); strings.Contains(body, "Input:") || strings.Contains(body, "POST") || !strings.Contains(body, "`addToCart`") {
		t.Errorf("for tools:\n%s", body)
	}
	// HEAD: the headers alone.
	if w := f.c.Do(http.MethodHead, "/products/tee", nil, sitetest.Header("Accept", "text/markdown")); w.Body.Len() != 0 || w.Header().Get("Content-Length") == "" {
		t.Errorf("HEAD: %d bytes", w.Body.Len())
	}
	// A page that is not there.
	if w := f.c.Get("/products/nope", sitetest.Header("Accept", "text/markdown")); w.Code != 404 || !strings.HasPrefix(w.Header().Get("Content-Type"), "text/markdown") {
		t.Errorf("missing page: %d %s", w.Code, w.Header().Get("Content-Type"))
	}
}

func TestIndex_OffersMarkdown(t *testing.T) {
	idx := newFixture(t).c.Index()
	found := false
	for _, e := range idx.Extensions {
		found = found || e == protocol.ExtensionMarkdown
	}
	if !found {
		t.Errorf("extensions %v", idx.Extensions)
	}
}
