package site_test

import (
	"bytes"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site"
	"github.com/affordances-go/affordances/site/sitetest"
)

// The HTML of a page shown to a caller with credentials, or of a page
// marked personal, may not be kept by a shared cache.
func TestHTML_PersonalPagesAreNotCached(t *testing.T) {
	f := newFixture(t)
	if cc := f.c.Get("/products/tee").Header().Get("Cache-Control"); cc != "" {
		t.Errorf("anonymous HTML: Cache-Control %q, want none", cc)
	}
	for _, h := range [][]string{{"Cookie", "session=alice"}, {"Cookie", "session=guest"}, {"Authorization", "Bearer good"}} {
		if cc := f.c.Get("/products/tee", sitetest.Header(h...)).Header().Get("Cache-Control"); cc != "private, no-store" {
			t.Errorf("HTML for %v: Cache-Control %q", h, cc)
		}
	}
	s := site.New(site.Options{})
	s.Page("/cart", site.PageOptions{Personal: true, View: productView})
	if cc := sitetest.New(t, s).Get("/cart").Header().Get("Cache-Control"); cc != "private, no-store" {
		t.Errorf("personal page for a guest: Cache-Control %q", cc)
	}
}

// countingReader fails the test's expectations if the site reads it.
type countingReader struct{ n int }

func (r *countingReader) Read(p []byte) (int, error) { r.n++; return 0, io.EOF }

// A body declared larger than the limit is refused before any of it is
// read, so a client waiting on Expect: 100-continue never sends it.
func TestBodyLimit_RefusesADeclaredLengthBeforeReading(t *testing.T) {
	f := newFixture(t)
	for _, ct := range []string{protocol.MediaType, "application/x-www-form-urlencoded"} {
		body := &countingReader{}
		w := f.c.Do("POST", "/p/tee", body, sitetest.Header("Content-Type", ct, "Expect", "100-continue"),
			func(r *http.Request) { r.ContentLength = 2 << 20 })
		if w.Code != http.StatusRequestEntityTooLarge || body.n != 0 {
			t.Errorf("%s: status %d after %d reads of the body", ct, w.Code, body.n)
		}
	}
}

// JSON Schema counts 1.0 and 1e0 as integers: so does the decoder, for
// agents and for forms.
func TestIntegers_WrittenAsDecimalsAreAccepted(t *testing.T) {
	f := newFixture(t)
	for _, qty := range []string{"2.0", "2e0", "20E-1"} {
		w := f.c.CallBody("/p/tee", `{"action":"addToCart","input":{"sku":"A","qty":`+qty+`}}`)
		if w.ErrorCode() != "ok" || !strings.Contains(w.Body.String(), `"output":{"lines":{"A":`) {
			t.Errorf("qty %s: %s", qty, w.Body)
		}
	}
	if w := f.c.CallBody("/p/tee", `{"action":"addToCart","input":{"sku":"A","qty":2.5}}`); w.ErrorCode() != "invalid_input" {
		t.Errorf("qty 2.5: %s", w.Body)
	}
	if w := f.c.PostForm("/p/tee", url.Values{"_action": {"kinds"}, "n": {"3.0"}}); w.Code != 303 || f.lastKinds.N != 3 {
		t.Errorf("form n=3.0: %d, decoded %d", w.Code, f.lastKinds.N)
	}
}

// An action's own limit answers 429 with Retry-After, like the site's.
func TestRateLimited_FromAHandler(t *testing.T) {
	s := site.New(site.Options{})
	p := s.Page("/login", site.PageOptions{})
	site.Handle(p, site.Action{Name: "signIn", Expose: protocol.ExposePublic},
		func(*site.Request, struct{}) (site.Done, error) {
			return site.Done{}, site.RateLimited(90*time.Second+time.Millisecond, "too many failed sign-ins for this account")
		})
	w := sitetest.New(t, s).Call("/login", "signIn", nil)
	if w.Code != 429 || w.ErrorCode() != "rate_limited" || w.Header().Get("Retry-After") != "91" {
		t.Errorf("%d %v %s", w.Code, w.Header(), w.Body)
	}
}

// Vary: Accept only where the site negotiates. On a path no page
// matches, what a browser gets (the application's static file, its 404,
// the site's 404) is the same whatever the Accept, so it carries no Vary:
// a shared cache keeps one copy. The agent's not_found there is never
// stored (private, no-store), so no cache can hand it to a browser.
func TestVary_OnlyWhereTheSiteNegotiates(t *testing.T) {
	s := site.New(site.Options{})
	s.Page("/books", site.PageOptions{Description: "books"})
	app := http.NewServeMux()
	app.HandleFunc("GET /static/app.css", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/css")
		w.Write([]byte("body{}"))
	})
	app.HandleFunc("GET /books", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("<p>books</p>")) })
	c := sitetest.New(t, s.Wrap(app))
	for _, path := range []string{"/static/app.css", "/nowhere"} {
		if w := c.Get(path); w.Header().Get("Vary") != "" {
			t.Errorf("%s (%d) for a browser: Vary %q, want none", path, w.Code, w.Header().Get("Vary"))
		}
		w := c.Get(path, sitetest.Header("Accept", protocol.MediaType))
		if w.Code != 404 || w.Header().Get("Cache-Control") != "private, no-store" {
			t.Errorf("%s for an agent: %d, Cache-Control %q", path, w.Code, w.Header().Get("Cache-Control"))
		}
	}
	if w := sitetest.New(t, site.New(site.Options{})).Get("/nowhere"); w.Code != 404 || w.Header().Get("Vary") != "" {
		t.Errorf("the site's own 404: %d Vary %q", w.Code, w.Header().Get("Vary"))
	}
	if w := c.Get("/books"); w.Header().Get("Vary") != "Accept" {
		t.Errorf("a page with a graph: Vary %q, want Accept", w.Header().Get("Vary"))
	}
}

// A limiter that fails on every call (Redis down) is logged once per
// burst, with the count, not once per request; every fault is counted.
func TestLimiterFaults_AreLoggedOncePerBurst(t *testing.T) {
	var logs bytes.Buffer
	s := site.New(site.Options{Limits: site.LimitOptions{Limiter: failingLimiter{}}, Logger: slog.New(slog.NewTextHandler(&logs, nil)), AuditLogger: slog.New(slog.DiscardHandler)})
	p := s.Page("/", site.PageOptions{})
	site.Handle(p, site.Action{Name: "go", Expose: protocol.ExposePublic}, func(*site.Request, struct{}) (site.Done, error) { return site.Done{}, nil })
	c := sitetest.New(t, s)
	for range 50 {
		if res := c.Call("/", "go", nil); res.Code != 200 {
			t.Fatalf("fail-open call: %d", res.Code)
		}
	}
	if n := strings.Count(logs.String(), "rate limiter failed"); n != 1 || s.LimiterFaults() != 50 {
		t.Errorf("%d log records for 50 faults (counted %d)", n, s.LimiterFaults())
	}
}
