package main

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/affordances-go/affordances/examples/shop/shoptest"
	"github.com/affordances-go/affordances/protocol"
)

// afford runs the command in-process and returns its exit code, stdout and
// stderr.
func afford(t *testing.T, env map[string]string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(args, strings.NewReader(""), &out, &errb, func(k string) string { return env[k] })
	return code, out.String(), errb.String()
}

func TestAfford_BuysATeeWithABearerToken(t *testing.T) {
	s := shoptest.Start(t)
	env := map[string]string{"AFFORD_TOKEN": s.Token}
	before := s.Stock(t, "TEE-BLK-M")

	code, out, _ := afford(t, env, "index", s.URL)
	if code != 0 || !strings.Contains(out, "/products/[slug]") || !strings.Contains(out, "addToCart") {
		t.Fatalf("index: %d\n%s", code, out)
	}
	code, out, _ = afford(t, env, "get", s.URL+"/products/heavyweight-tee")
	if code != 0 || !strings.Contains(out, "addToCart") || !strings.Contains(out, "sku qty?") {
		t.Fatalf("get: %d\n%s", code, out)
	}
	code, out, errs := afford(t, env, "call", s.URL+"/products/heavyweight-tee", "addToCart", "sku=TEE-BLK-M", "qty=1")
	if code != 0 || !strings.Contains(out, "ok: Added 1 × Heavyweight Tee (Black, M)") {
		t.Fatalf("addToCart: %d\n%s\n%s", code, out, errs)
	}
	// Without a terminal, confirm is refused unless --yes.
	code, _, errs = afford(t, env, "call", s.URL+"/checkout", "placeOrder")
	if code != exitNotConfirmed || !strings.Contains(errs, "--yes") || !strings.Contains(errs, "Heavyweight Tee (Black, M)") {
		t.Fatalf("placeOrder without --yes: %d\n%s", code, errs)
	}
	if s.Orders(t) != 0 {
		t.Fatal("an order was placed without confirmation")
	}
	code, out, errs = afford(t, env, "call", s.URL+"/checkout", "placeOrder", "--yes")
	if code != 0 || !strings.Contains(out, "next: /orders/") {
		t.Fatalf("placeOrder --yes: %d\n%s\n%s", code, out, errs)
	}
	if got := s.Stock(t, "TEE-BLK-M"); got != before-1 {
		t.Errorf("stock %d, want %d", got, before-1)
	}
}

func TestAfford_KeepsASessionInACookieJar(t *testing.T) {
	s := shoptest.Start(t)
	jar := filepath.Join(t.TempDir(), "jar.json")
	code, out, errs := afford(t, nil, "call", "--cookie-jar", jar, s.URL+"/login", "signIn", "email=demo@example.com", "password=demo")
	if code != 0 {
		t.Fatalf("signIn: %d %s %s", code, out, errs)
	}
	if info, err := os.Stat(jar); err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("jar file: %v %v", info, err)
	}
	afford(t, nil, "call", "--cookie-jar", jar, s.URL+"/products/heavyweight-tee", "addToCart", `{"sku":"TEE-BLK-M"}`)
	code, out, errs = afford(t, nil, "call", "--cookie-jar", jar, "--yes", "--follow", s.URL+"/checkout", "placeOrder")
	if code != 0 || !strings.Contains(out, "(route /orders/[id])") {
		t.Fatalf("placeOrder: %d\n%s\n%s", code, out, errs)
	}
	if s.Orders(t) != 1 {
		t.Errorf("orders %d", s.Orders(t))
	}
	// Without the jar there is no session.
	code, _, _ = afford(t, nil, "call", "--yes", s.URL+"/checkout", "placeOrder")
	if code != exitUnauthorized {
		t.Errorf("without the jar: %d", code)
	}
}

func TestAfford_InvalidInputShowsEveryIssue(t *testing.T) {
	s := shoptest.Start(t)
	code, _, errs := afford(t, map[string]string{"AFFORD_TOKEN": s.Token}, "call", s.URL+"/products/heavyweight-tee", "addToCart", "sku=tee", "qty=11", "colour=black")
	if code != exitInvalidInput {
		t.Fatalf("exit %d\n%s", code, errs)
	}
	for _, want := range []string{"/sku", "/qty", "/colour", "pattern", "maximum", "additionalProperties"} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errs)
		}
	}
	// A value the schema cannot take is caught before anything is sent.
	if code, _, errs := afford(t, nil, "call", s.URL+"/products/heavyweight-tee", "addToCart", "sku=TEE-BLK-M", "qty=two"); code != exitUsage || !strings.Contains(errs, "qty") {
		t.Errorf("qty=two: %d %s", code, errs)
	}
}

func TestAfford_RefusesAnUnsupportedMajor(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", protocol.MediaType)
		w.Write([]byte(`{"v":"7","page":"/","route":"/","entities":{},"actions":[]}`))
	}))
	defer srv.Close()
	code, _, errs := afford(t, nil, "get", srv.URL+"/")
	if code != exitFailure || !strings.Contains(errs, "protocol major 7") {
		t.Errorf("%d %s", code, errs)
	}
}

func TestAfford_ExitCodesAndHelp(t *testing.T) {
	s := shoptest.Start(t)
	if code, out, _ := afford(t, nil, "--help"); code != 0 || !strings.Contains(out, "Exit codes") || !strings.Contains(out, "Examples") {
		t.Errorf("--help: %d", code)
	}
	if code, _, _ := afford(t, nil); code != exitUsage {
		t.Errorf("no command: %d", code)
	}
	if code, _, _ := afford(t, nil, "frobnicate", s.URL); code != exitUsage {
		t.Errorf("unknown command: %d", code)
	}
	if code, _, _ := afford(t, nil, "get", s.URL+"/nowhere"); code != exitNotFound {
		t.Errorf("not found: %d", code)
	}
	if code, _, _ := afford(t, nil, "call", s.URL+"/products/heavyweight-tee", "nope"); code != exitNotFound {
		t.Errorf("unknown action: %d", code)
	}
	if code, _, _ := afford(t, map[string]string{"AFFORD_TOKEN": "bad"}, "get", s.URL+"/"); code != exitUnauthorized {
		t.Errorf("bad token: %d", code)
	}
	if code, _, _ := afford(t, nil, "call", s.URL+"/products/heavyweight-tee", "addToCart", "sku=TEE-BLK-XL"); code != exitUnavailable {
		t.Errorf("sold out size: %d", code)
	}
	if code, out, _ := afford(t, nil, "get", "--json", s.URL+"/cart"); code != 0 || !strings.Contains(out, `"route": "/cart"`) {
		t.Errorf("--json: %d %s", code, out)
	}
}
