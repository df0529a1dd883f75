package main

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/affordances-go/affordances/examples/shop/shop"
	"github.com/affordances-go/affordances/examples/shop/shoptest"
	"github.com/affordances-go/affordances/internal/wiretest"
	"github.com/affordances-go/affordances/protocol"
)

// golden compares text with testdata/NAME, or writes it with -update.
func golden(t *testing.T, name, text string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *wiretest.Update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("golden %s: %v (run with -update to create it)", name, err)
	}
	if string(want) != text {
		t.Errorf("golden %s differs (run with -update after checking the change):\ngot:\n%s\nwant:\n%s", name, text, want)
	}
}

// TestOutput_Golden runs the command as a person would, against the demo
// store, and compares what it prints (stdout, then stderr, then the exit
// code) with golden files. The store's address is written SITE.
func TestOutput_Golden(t *testing.T) {
	s := shoptest.Start(t)
	token := map[string]string{"AFFORD_TOKEN": s.Token}
	refused := closedPort(t)
	cases := []struct {
		name string
		env  map[string]string
		args []string
	}{
		{"index.txt", nil, []string{"index", s.URL}},
		{"get-product.txt", nil, []string{"get", s.URL + "/products/heavyweight-tee"}},
		{"call-add.txt", token, []string{"call", s.URL + "/products/heavyweight-tee", "addToCart", "sku=TEE-BLK-M", "qty=2"}},
		{"call-invalid.txt", token, []string{"call", s.URL + "/products/heavyweight-tee", "addToCart", "sku=tee", "qty=11"}},
		{"call-invalid-json.txt", token, []string{"call", "--json", s.URL + "/products/heavyweight-tee", "addToCart", "sku=tee", "qty=11"}},
		{"call-local-input.txt", token, []string{"call", s.URL + "/products/heavyweight-tee", "addToCart", "sku=TEE-BLK-M", "qty=two"}},
		{"call-unknown-action.txt", token, []string{"call", s.URL + "/products/heavyweight-tee", "placeOrder"}},
		{"call-typo.txt", token, []string{"call", s.URL + "/products/heavyweight-tee", "addToCrt"}},
		{"call-unauthorized.txt", nil, []string{"call", s.URL + "/checkout", "placeOrder"}},
		{"call-unauthorized-json.txt", nil, []string{"call", "--json", s.URL + "/checkout", "placeOrder"}},
		{"call-bad-token.txt", map[string]string{"AFFORD_TOKEN": "nope"}, []string{"call", s.URL + "/checkout", "placeOrder"}},
		{"call-no-terminal.txt", token, []string{"call", s.URL + "/checkout", "placeOrder"}},
		{"get-no-page.txt", nil, []string{"get", s.URL + "/nowhere"}},
		{"get-no-scheme.txt", nil, []string{"get", strings.TrimPrefix(s.URL, "http://") + "/cart"}},
		{"get-no-scheme-json.txt", nil, []string{"get", "--json", strings.TrimPrefix(s.URL, "http://") + "/cart"}},
		{"get-refused.txt", nil, []string{"get", refused + "/"}},
		{"get-refused-json.txt", nil, []string{"get", "--json", refused + "/"}},
		{"get-not-a-site.txt", nil, []string{"get", s.URL + "/static/style.css"}},
		{"unknown-flag.txt", nil, []string{"get", "--frobnicate", s.URL}},
		{"mcp-help.txt", nil, []string{"mcp", "--help"}},
		{"check-100.txt", map[string]string{"COLUMNS": "100"}, []string{"check", s.URL}},
		{"call-pattern-case.txt", token, []string{"call", s.URL + "/products/heavyweight-tee", "addToCart", "sku=tee-blk-m"}},
		{"call-no-jar.txt", nil, []string{"call", s.URL + "/products/heavyweight-tee", "addToCart", "sku=TEE-BLK-M"}},
	}
	for _, tc := range cases {
		code, out, errs := afford(t, tc.env, tc.args...)
		text := fmt.Sprintf("$ afford %s\n%s--- stderr\n%s--- exit %d\n", strings.Join(tc.args, " "), out, errs, code)
		text = strings.ReplaceAll(text, s.URL, "SITE")
		text = strings.ReplaceAll(text, strings.TrimPrefix(s.URL, "http://"), "HOST")
		text = strings.ReplaceAll(text, refused, "REFUSED")
		golden(t, tc.name, text)
		if strings.Contains(tc.name, "json") && !json.Valid([]byte(out)) {
			t.Errorf("%s: stdout is not one JSON document:\n%s", tc.name, out)
		}
	}
}

// closedPort is the URL of a loopback port nothing listens on.
func closedPort(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	u := "http://" + l.Addr().String()
	l.Close()
	return u
}

// A long list folds to its first items and a count; --full shows it all.
func TestGet_FoldsLongListsUnlessFull(t *testing.T) {
	var items []string
	for i := range 30 {
		items = append(items, fmt.Sprintf(`{"n":%d}`, i))
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", protocol.MediaType)
		fmt.Fprintf(w, `{"v":"0","page":"/","route":"/","entities":{"list":[%s],"note":"a long line of text that is never cut: %s"},"actions":[]}`,
			strings.Join(items, ","), strings.Repeat("x", 150))
	}))
	defer srv.Close()
	_, out, _ := afford(t, nil, "get", srv.URL+"/")
	if !strings.Contains(out, "list: (30)") || !strings.Contains(out, "- {n: 9}") || strings.Contains(out, "- {n: 10}") ||
		!strings.Contains(out, "… 20 more (--full shows them all)") || !strings.Contains(out, strings.Repeat("x", 150)) {
		t.Errorf("folded:\n%s", out)
	}
	_, out, _ = afford(t, nil, "get", "--full", srv.URL+"/")
	if !strings.Contains(out, "- {n: 29}") || strings.Contains(out, "more (--full") {
		t.Errorf("--full:\n%s", out)
	}
}

// A site without auth modes says so, rather than an empty label.
func TestIndex_WithoutAuthModesSaysNone(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", protocol.MediaType)
		fmt.Fprint(w, `{"v":"0","name":"Shelf","routes":[{"route":"/","description":"Books"}]}`)
	}))
	defer srv.Close()
	if _, out, _ := afford(t, nil, "index", srv.URL); !strings.Contains(out, "Shelf  protocol v0  auth: none\n") {
		t.Errorf("index:\n%s", out)
	}
}

// afford check says once that a site does not answer, and asks for a
// scheme, instead of failing every check.
func TestCheck_UnreachableOrWithoutScheme(t *testing.T) {
	refused := closedPort(t)
	code, _, errs := afford(t, nil, "check", refused+"/")
	if code != exitFailure || !strings.Contains(errs, "is the site running at") || strings.Count(errs, "\n") > 2 {
		t.Errorf("refused: %d %s", code, errs)
	}
	code, _, errs = afford(t, nil, "check", strings.TrimPrefix(refused, "http://"))
	if code != exitUsage || !strings.Contains(errs, "did you mean http://") {
		t.Errorf("no scheme: %d %s", code, errs)
	}
}

// The wait for a person's approval on the site ends after --wait with
// approval_pending and exit 8, in text and in JSON, never with a generic
// failure.
func TestOutput_WaitEnds(t *testing.T) {
	s := shoptest.StartWith(t, shop.Options{}) // approvals on the site, as go run ./examples/shop
	env := map[string]string{"AFFORD_TOKEN": s.Token}
	approvalID := regexp.MustCompile(`/approvals/[A-Za-z0-9_-]+`)
	for _, tc := range []struct{ name, format string }{{"call-wait-ends.txt", ""}, {"call-wait-ends-json.txt", "--json"}} {
		if code, _, errs := afford(t, env, "call", s.URL+"/products/heavyweight-tee", "addToCart", "sku=TEE-BLK-M"); code != 0 {
			t.Fatalf("addToCart: %d %s", code, errs)
		}
		args := []string{"call", "--wait", "1s", s.URL + "/checkout", "placeOrder"}
		if tc.format != "" {
			args = append(args, tc.format)
		}
		code, out, errs := afford(t, env, args...)
		text := fmt.Sprintf("$ afford %s\n%s--- stderr\n%s--- exit %d\n", strings.Join(args, " "), out, errs, code)
		text = approvalID.ReplaceAllString(strings.ReplaceAll(text, s.URL, "SITE"), "/approvals/ID")
		golden(t, tc.name, text)
		if code != 8 || !strings.Contains(out+errs, "approval_pending") && tc.format != "" {
			t.Errorf("%s: exit %d", tc.name, code)
		}
	}
}
