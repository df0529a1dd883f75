package conformance_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/affordances-go/affordances/conformance"
	"github.com/affordances-go/affordances/examples/shop/shop"
	"github.com/affordances-go/affordances/examples/shop/shoptest"
	"github.com/affordances-go/affordances/protocol"
)

// server is the demo store behind an optional breaking middleware, with
// a configuration that lets every check run.
func server(t *testing.T, breakIt func(http.Handler) http.Handler) (conformance.Config, *shoptest.Shop) {
	t.Helper()
	s := shoptest.Start(t)
	h := http.Handler(s.App)
	if breakIt != nil {
		h = breakIt(h)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	ctx := context.Background()
	demo, _ := s.Store.UserByEmail(ctx, shop.DemoEmail)
	sess, err := s.Store.CreateSession(ctx, demo)
	if err != nil {
		t.Fatal(err)
	}
	// The confirm check needs something in the cart.
	if _, err := s.Store.AddToCart(ctx, shop.CartOwner{UserID: demo}, "TEE-BLK-S", 1); err != nil {
		t.Fatal(err)
	}
	return conformance.Config{
		BaseURL: srv.URL,
		Token:   s.Token,
		Cookie:  "sid=" + sess,
		Safe:    &conformance.Action{Page: "/products/heavyweight-tee", Name: "addToCart", Input: json.RawMessage(`{"sku":"TEE-WHI-S"}`)},
		Confirm: &conformance.Action{Page: "/checkout", Name: "placeOrder"},
		Burst:   true,
	}, s
}

func run(t *testing.T, cfg conformance.Config) *conformance.Report {
	t.Helper()
	rep, err := conformance.Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func TestDemoStore_PassesEveryCheck(t *testing.T) {
	cfg, s := server(t, nil)
	rep := run(t, cfg)
	for _, r := range rep.Results {
		if r.Status != conformance.Pass {
			t.Errorf("%s %s: %s", r.ID, r.Status, r.Detail)
		}
	}
	if s.Orders(t) != 0 {
		t.Error("the checker placed an order")
	}
	if !strings.HasPrefix(rep.Summary(), strconv.Itoa(len(conformance.Catalogue()))+" passed, 0 failed, 0 skipped") {
		t.Errorf("summary %q", rep.Summary())
	}
}

func TestDefaultRun_ChangesNothing(t *testing.T) {
	cfg, s := server(t, nil)
	before := s.Stock(t, "TEE-WHI-S")
	rep := run(t, conformance.Config{BaseURL: cfg.BaseURL})
	if rep.MustFailed() {
		t.Errorf("a must failed: %+v", rep.Results)
	}
	if s.Stock(t, "TEE-WHI-S") != before || s.Orders(t) != 0 {
		t.Error("the default run changed the store")
	}
	for _, r := range rep.Results {
		if r.Status == conformance.Skip && r.Detail == "" {
			t.Errorf("%s skipped without a reason", r.ID)
		}
	}
}

// rewriter lets a breaking middleware change a response body.
type rewriter struct {
	http.ResponseWriter
	buf    bytes.Buffer
	status int
}

func (w *rewriter) WriteHeader(s int)           { w.status = s }
func (w *rewriter) Write(b []byte) (int, error) { return w.buf.Write(b) }

func rewrite(next http.Handler, f func(r *http.Request, h http.Header, body []byte) []byte) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rw := &rewriter{ResponseWriter: w, status: 200}
		next.ServeHTTP(rw, r)
		body := f(r, w.Header(), rw.buf.Bytes())
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.WriteHeader(rw.status)
		w.Write(body)
	})
}

var issuePath = regexp.MustCompile(`"path":"[^"]*",?`)

// Each broken server violates one rule, and exactly the check for that
// rule fails.
func TestBrokenServers_AreFlaggedByExactlyTheirCheck(t *testing.T) {
	cases := []struct {
		check   string
		breakIt func(http.Handler) http.Handler
	}{
		{"negotiation.any", func(next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Header.Get("Accept") == "*/*" { // JSON to */*
					r.Header.Set("Accept", protocol.MediaType)
				}
				next.ServeHTTP(w, r)
			})
		}},
		{"headers.graph-vary", func(next http.Handler) http.Handler {
			return rewrite(next, func(r *http.Request, h http.Header, body []byte) []byte {
				if strings.HasPrefix(h.Get("Content-Type"), protocol.MediaType) && r.Method == http.MethodGet {
					h.Del("Vary")
				}
				return body
			})
		}},
		{"negotiation.alias-not-in-state", func(next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				// The alias reaches the catalog's search: ?affordances=1 is
				// read as a search for "affordances".
				if r.URL.Path == "/" && r.URL.Query().Get("affordances") == "1" {
					r.Header.Set("Accept", protocol.MediaType)
					r.URL.RawQuery = url.Values{"q": {"affordances"}}.Encode()
				}
				next.ServeHTTP(w, r)
			})
		}},
		{"confirm.nothing-runs", func(next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Method == http.MethodPost && r.URL.Path == "/checkout" {
					b, _ := io.ReadAll(r.Body)
					var call map[string]any
					if json.Unmarshal(b, &call) == nil && call["action"] == "placeOrder" {
						call["confirm"] = true // the server confirms on its own
						b, _ = json.Marshal(call)
					}
					r.Body = io.NopCloser(bytes.NewReader(b))
					r.ContentLength = int64(len(b))
				}
				next.ServeHTTP(w, r)
			})
		}},
		{"origin.cookie-calls", func(next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Method == http.MethodPost { // Origin never checked
					r.Header.Set("Origin", "http://"+r.Host)
				}
				next.ServeHTTP(w, r)
			})
		}},
		{"calls.invalid-input", func(next http.Handler) http.Handler {
			return rewrite(next, func(r *http.Request, h http.Header, body []byte) []byte {
				return issuePath.ReplaceAll(body, nil) // issues without a path
			})
		}},
	}
	for _, c := range cases {
		t.Run(c.check, func(t *testing.T) {
			cfg, _ := server(t, c.breakIt)
			rep := run(t, cfg)
			var failed []string
			for _, r := range rep.Results {
				if r.Status == conformance.Fail {
					failed = append(failed, r.ID+": "+r.Detail)
				}
			}
			if len(failed) != 1 || !strings.HasPrefix(failed[0], c.check+":") {
				t.Errorf("failed checks %q, want exactly %s", failed, c.check)
			}
		})
	}
}

func TestCatalogue_IDsAreUniqueAndDocumented(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range conformance.Catalogue() {
		if seen[c.ID] || c.Rule == "" || (c.Level != conformance.Must && c.Level != conformance.Should) {
			t.Errorf("check %+v", c.ID)
		}
		seen[c.ID] = true
	}
}

func TestDocs_ListEveryCheck(t *testing.T) {
	doc, err := os.ReadFile("../docs/conformance.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range conformance.Catalogue() {
		if !strings.Contains(string(doc), "| `"+c.ID+"` | "+string(c.Level)+" |") {
			t.Errorf("docs/conformance.md lacks %s (%s)", c.ID, c.Level)
		}
	}
}
