package e2e_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
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
	// An order, so that /orders/[id] has a page to reach, and something
	// in the cart for the confirm check.
	if _, err := s.Store.AddToCart(ctx, shop.CartOwner{UserID: demo}, "TEE-BLK-S", 1); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Store.PlaceOrder(ctx, demo, nil, nil); err != nil {
		t.Fatal(err)
	}
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

// The store in v0 (no approvals) passes every check but the approval
// ones, which skip: it declares none.
func TestDemoStore_PassesEveryCheck(t *testing.T) {
	cfg, s := server(t, nil)
	rep := run(t, cfg)
	for _, r := range rep.Results {
		if r.Status != conformance.Pass && !(strings.HasPrefix(r.ID, "approval.") && r.Status == conformance.Skip) {
			t.Errorf("%s %s: %s", r.ID, r.Status, r.Detail)
		}
	}
	if s.Orders(t) != 1 {
		t.Error("the checker placed an order")
	}
	if !strings.HasPrefix(rep.Summary(), strconv.Itoa(len(conformance.Catalogue())-3)+" passed, 0 failed, 0 warnings, 3 skipped") {
		t.Errorf("summary %q", rep.Summary())
	}
}

// The store as shipped, with approvals, passes the approval checks; a
// server whose index declares approvals it does not keep fails them.
func TestApprovalChecks(t *testing.T) {
	for _, c := range []struct {
		name      string
		approvals bool
		want      conformance.Status
	}{{"kept", true, conformance.Pass}, {"declared but not kept", false, conformance.Fail}} {
		t.Run(c.name, func(t *testing.T) {
			s := shoptest.StartWith(t, shop.Options{NoApprovals: !c.approvals})
			h := http.Handler(s.App)
			if !c.approvals {
				h = rewrite(h, func(r *http.Request, hd http.Header, body []byte) []byte {
					if r.Method == http.MethodGet && strings.HasPrefix(hd.Get("Content-Type"), protocol.MediaType) {
						return bytes.ReplaceAll(body, []byte(`"name":"placeOrder",`), []byte(`"name":"placeOrder","approval":true,`))
					}
					return body
				})
			}
			srv := httptest.NewServer(h)
			defer srv.Close()
			ctx := context.Background()
			demo, _ := s.Store.UserByEmail(ctx, shop.DemoEmail)
			s.Store.AddToCart(ctx, shop.CartOwner{UserID: demo}, "TEE-BLK-S", 1)
			rep, err := conformance.RunChecks(ctx, conformance.Config{BaseURL: srv.URL, Token: s.Token, Pages: []string{"/checkout"},
				Confirm: &conformance.Action{Page: "/checkout", Name: "placeOrder"}}, only("approval.needed", "approval.page-session", "approval.unknown-refused"))
			if err != nil {
				t.Fatal(err)
			}
			if r := rep.Results[0]; r.Status != c.want {
				t.Errorf("approval.needed: %s %s", r.Status, r.Detail)
			}
			if c.approvals {
				for _, r := range rep.Results {
					if r.Status != conformance.Pass {
						t.Errorf("%s: %s %s", r.ID, r.Status, r.Detail)
					}
				}
				if s.Orders(t) != 0 {
					t.Error("an order ran")
				}
			}
		})
	}
}

func TestDefaultRun_ChangesNothing(t *testing.T) {
	cfg, s := server(t, nil)
	before := s.Stock(t, "TEE-WHI-S")
	rep := run(t, conformance.Config{BaseURL: cfg.BaseURL})
	if rep.MustFailed() {
		t.Errorf("a must failed: %+v", rep.Results)
	}
	if s.Stock(t, "TEE-WHI-S") != before || s.Orders(t) != 1 {
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
		if r.URL.Path == "/mcp" { // a stream: not rewritten
			next.ServeHTTP(w, r)
			return
		}
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
		{"index.matches-graphs", func(next http.Handler) http.Handler {
			// The index forgets an action of a route whose pages are only
			// linked from other pages (every product page).
			return rewrite(next, func(r *http.Request, h http.Header, body []byte) []byte {
				if r.URL.Path != protocol.WellKnownPath {
					return body
				}
				var idx map[string]any
				json.Unmarshal(body, &idx)
				for _, rt := range idx["routes"].([]any) {
					rt := rt.(map[string]any)
					if rt["route"] == "/products/[slug]" {
						rt["actions"] = []any{}
					}
				}
				b, _ := json.Marshal(idx)
				return b
			})
		}},
		{"calls.order-input-before-guard", func(next http.Handler) http.Handler {
			// The guard is evaluated before the input: a signed-in call
			// with an input that is not an object, of an action the
			// page's graph lists as unavailable to the caller (an empty
			// cart's setQuantity, signOut with a token), answers 409.
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				signedIn := r.Header.Get("Authorization") != "" || r.Header.Get("Cookie") != ""
				if r.Method == http.MethodPost && signedIn {
					b, _ := io.ReadAll(r.Body)
					r.Body = io.NopCloser(bytes.NewReader(b))
					var call map[string]any
					if json.Unmarshal(b, &call) == nil {
						if _, isList := call["input"].([]any); isList && !availableTo(next, r, call["action"]) {
							w.Header().Set("Content-Type", protocol.MediaType)
							w.WriteHeader(http.StatusConflict)
							w.Write([]byte(`{"ok":false,"error":{"code":"unavailable","message":"not now"}}`))
							return
						}
					}
				}
				next.ServeHTTP(w, r)
			})
		}},
		{"mcp.endpoint", func(next http.Handler) http.Handler {
			// The index lists an MCP endpoint that is not served.
			return rewrite(next, func(r *http.Request, h http.Header, body []byte) []byte {
				if r.URL.Path == protocol.WellKnownPath {
					return bytes.Replace(body, []byte(`"mcp":"/mcp"`), []byte(`"mcp":"/nothing-here"`), 1)
				}
				return body
			})
		}},
		{"headers.not-found-uncached", func(next http.Handler) http.Handler {
			return rewrite(next, func(r *http.Request, h http.Header, body []byte) []byte {
				if h.Get("Content-Type") == protocol.MediaType && strings.HasPrefix(r.URL.Path, "/afford-check-no-such-page") {
					h.Set("Cache-Control", "public, max-age=600")
					h.Del("Vary")
				}
				return body
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

// only returns the checks of the catalogue with the given ids.
func only(ids ...string) []conformance.Check {
	var out []conformance.Check
	for _, c := range conformance.Catalogue() {
		for _, id := range ids {
			if c.ID == id {
				out = append(out, c)
			}
		}
	}
	return out
}

// availableTo reports whether the graph of r's page, read from h with r's
// credentials, lists the action as available.
func availableTo(h http.Handler, r *http.Request, action any) bool {
	get := httptest.NewRequest(http.MethodGet, r.URL.String(), nil)
	get.Header.Set("Accept", protocol.MediaType)
	for _, k := range []string{"Authorization", "Cookie"} {
		if v := r.Header.Get(k); v != "" {
			get.Header.Set(k, v)
		}
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, get)
	var g protocol.Graph
	if json.Unmarshal(rec.Body.Bytes(), &g) != nil {
		return true
	}
	for _, a := range g.Actions {
		if a.Name == action {
			return a.Available
		}
	}
	return true
}
