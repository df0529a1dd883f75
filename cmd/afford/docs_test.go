package main

import (
	"context"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/affordances-go/affordances/examples/shop/shop"
	"github.com/affordances-go/affordances/examples/shop/shoptest"
	"github.com/affordances-go/affordances/internal/syncbuf"
)

// docs/agents.md's sample of an approval on the site is what afford
// prints: the test runs the same purchase, approves it as the person would
// on the site, and compares every line (the store's address and the
// approval's id aside).
func TestDocs_ApprovalSampleIsTrue(t *testing.T) {
	doc, err := os.ReadFile("../../docs/agents.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)```text\n(\\$ afford call http://localhost:8080/checkout placeOrder\n.*?)```").FindSubmatch(doc)
	if m == nil {
		t.Fatal("docs/agents.md has no sample of an approval on the site")
	}
	want := string(m[1])

	s := shoptest.StartWith(t, shop.Options{}) // approvals on, as go run ./examples/shop
	env := map[string]string{"AFFORD_TOKEN": s.Token}
	if code, _, errs := afford(t, env, "call", s.URL+"/products/heavyweight-tee", "addToCart", "sku=TEE-BLK-M"); code != 0 {
		t.Fatal(errs)
	}
	var out syncbuf.Buffer
	done := make(chan int, 1)
	go func() {
		done <- run([]string{"call", s.URL + "/checkout", "placeOrder"}, strings.NewReader(""), &out, &out, func(k string) string { return env[k] })
	}()
	id := regexp.MustCompile(`/approvals/([A-Za-z0-9_-]+)`)
	for range 100 {
		if m := id.FindStringSubmatch(out.String()); m != nil {
			if err := s.Store.Approvals().Decide(context.Background(), m[1], true); err != nil {
				t.Fatal(err)
			}
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if code := <-done; code != 0 {
		t.Fatalf("exit %d:\n%s", code, out.String())
	}
	got := "$ afford call http://localhost:8080/checkout placeOrder\n" + out.String()
	got = strings.ReplaceAll(got, s.URL, "http://localhost:8080")
	got = id.ReplaceAllString(got, "/approvals/kD3…")
	if got != want {
		t.Errorf("docs/agents.md shows\n%s\nafford prints\n%s", want, got)
	}
}
