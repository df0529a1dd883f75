package main

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/affordances-go/affordances/examples/shop/shop"
	"github.com/affordances-go/affordances/examples/shop/shoptest"
	"github.com/affordances-go/affordances/internal/syncbuf"
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

// A site that takes the person's approval itself: --no-wait prints the
// page and exits 8; --approval completes the call after the person
// approved; without --no-wait afford waits for them.
func TestAfford_ApprovalOnTheSite(t *testing.T) {
	s := shoptest.StartWith(t, shop.Options{})
	env := map[string]string{"AFFORD_TOKEN": s.Token}
	afford(t, env, "call", s.URL+"/products/heavyweight-tee", "addToCart", "sku=TEE-BLK-M")
	code, _, errs := afford(t, env, "call", s.URL+"/checkout", "placeOrder", "--no-wait", "--yes")
	u := regexp.MustCompile(`http://\S+/approvals/\S+`).FindString(errs)
	if code != exitNotConfirmed || u == "" || s.Orders(t) != 0 {
		t.Fatalf("--no-wait: %d, %q\n%s", code, u, errs)
	}
	personApproves(t, s, u)
	if code, out, errs := afford(t, env, "call", s.URL+"/checkout", "placeOrder", "--approval", u); code != 0 || !strings.Contains(out, "next: /orders/") || s.Orders(t) != 1 {
		t.Fatalf("--approval: %d\n%s\n%s", code, out, errs)
	}

	// Waiting: the person approves while afford waits.
	afford(t, env, "call", s.URL+"/products/heavyweight-tee", "addToCart", "sku=TEE-BLK-M")
	var errb syncbuf.Buffer
	done := make(chan int)
	go func() {
		var out bytes.Buffer
		done <- run([]string{"call", s.URL + "/checkout", "placeOrder"}, strings.NewReader(""), &out, &errb, func(k string) string { return env[k] })
	}()
	deadline := time.Now().Add(10 * time.Second)
	for u = ""; u == "" && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		u = regexp.MustCompile(`http://\S+/approvals/\S+`).FindString(errb.String())
	}
	if s.Orders(t) != 1 {
		t.Fatal("the order ran before the approval")
	}
	personApproves(t, s, u)
	if code := <-done; code != 0 || s.Orders(t) != 2 {
		t.Fatalf("waiting: %d, %d orders\n%s", code, s.Orders(t), errb.String())
	}
}

// personApproves approves on the page as the demo person, signed in.
func personApproves(t *testing.T, s *shoptest.Shop, u string) {
	t.Helper()
	demo, _ := s.Store.UserByEmail(context.Background(), shop.DemoEmail)
	sess, _ := s.Store.CreateSession(context.Background(), demo)
	req, _ := http.NewRequest("POST", u, strings.NewReader("_decision=approve"))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Cookie", "sid="+sess)
	req.Header.Set("Origin", s.URL)
	res, err := http.DefaultClient.Do(req)
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("approving: %v %v", res, err)
	}
	res.Body.Close()
}
