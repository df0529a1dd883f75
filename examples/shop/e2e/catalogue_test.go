package e2e_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/affordances-go/affordances/conformance"
	"github.com/affordances-go/affordances/examples/shop/shoptest"
	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site"
)

// The checks' catalogue, its docs, and checks that skip or change nothing.

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
	doc, err := os.ReadFile("../../../docs/conformance.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range conformance.Catalogue() {
		if !strings.Contains(string(doc), "| `"+c.ID+"` | "+string(c.Level)+" |") {
			t.Errorf("docs/conformance.md lacks %s (%s)", c.ID, c.Level)
		}
	}
}

// A correct server whose confirm action is unavailable right now (an
// empty cart) is not failed: the check cannot tell, and says so.
func TestConfirmCheck_SkipsWhenTheGuardIsFalse(t *testing.T) {
	s := shoptest.Start(t)
	srv := httptest.NewServer(s.App)
	defer srv.Close()
	rep, err := conformance.RunChecks(context.Background(), conformance.Config{BaseURL: srv.URL, Token: s.Token,
		Confirm: &conformance.Action{Page: "/checkout", Name: "placeOrder"}}, only("confirm.nothing-runs"))
	if err != nil {
		t.Fatal(err)
	}
	if r := rep.Results[0]; r.Status != conformance.Skip || !strings.Contains(r.Detail, "put the state in place") {
		t.Errorf("%s: %s", r.Status, r.Detail)
	}
}

// A correct server where the token's caller is not signed in: its session
// actions are unavailable for their expose level, and answer 401 before
// validating, as they must. The check must not use them.
func TestInputBeforeGuard_IgnoresActionsUnavailableForExpose(t *testing.T) {
	s := site.New(site.Options{Logger: slog.New(slog.DiscardHandler),
		Auth: site.AuthFunc(func(r *http.Request) (site.Caller, error) {
			if _, ok := site.BearerToken(r); ok {
				return site.Caller{ID: "read-only", Mode: protocol.AuthBearer}, nil // a token that does not sign in
			}
			return site.Caller{}, nil
		})})
	p := s.Page("/", site.PageOptions{})
	site.Handle(p, site.Action{Name: "review", Expose: protocol.ExposeSession},
		func(*site.Request, struct {
			Text string `json:"text"`
		}) (site.Done, error) {
			return site.Done{}, nil
		})
	srv := httptest.NewServer(s)
	defer srv.Close()
	rep, err := conformance.RunChecks(context.Background(), conformance.Config{BaseURL: srv.URL, Token: "ro"},
		only("calls.order-input-before-guard"))
	if err != nil {
		t.Fatal(err)
	}
	if r := rep.Results[0]; r.Status == conformance.Fail {
		t.Errorf("a correct server failed: %s", r.Detail)
	}
}

// The default run sends nothing that runs, even to a broken server that
// confirms every call itself and takes any input it cannot read as empty.
func TestDefaultRun_ChangesNothingOnABrokenServer(t *testing.T) {
	cfg, s := server(t, func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodPost {
				b, _ := io.ReadAll(r.Body)
				var call map[string]any
				if json.Unmarshal(b, &call) == nil {
					call["confirm"] = true
					if _, isObject := call["input"].(map[string]any); !isObject {
						call["input"] = map[string]any{}
					}
					b, _ = json.Marshal(call)
				}
				r.Body = io.NopCloser(bytes.NewReader(b))
				r.ContentLength = int64(len(b))
			}
			next.ServeHTTP(w, r)
		})
	})
	before := s.Digest(t)
	run(t, conformance.Config{BaseURL: cfg.BaseURL})
	if s.Digest(t) != before {
		t.Error("the default run changed a broken store")
	}
}
