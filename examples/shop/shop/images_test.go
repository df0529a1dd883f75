package shop_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/affordances-go/affordances/examples/shop/shop"
	"github.com/affordances-go/affordances/examples/shop/shoptest"
	"github.com/affordances-go/affordances/site/inspector"
)

// Every product has its own picture, in each of its colours; anything
// else is the shop's 404.
func TestImages_OnePerProductAndColour(t *testing.T) {
	ts := newTestShop(t)
	c := ts.client(t, "")
	seen := map[string]string{}
	for _, path := range []string{"/images/heavyweight-tee.svg", "/images/heavyweight-tee/White.svg", "/images/everyday-hoodie.svg", "/images/enamel-mug/White.svg"} {
		res, body := c.do("GET", path, nil)
		if res.StatusCode != 200 || res.Header.Get("Content-Type") != "image/svg+xml" || !strings.Contains(body, "<title>") {
			t.Errorf("%s: %d %s", path, res.StatusCode, res.Header.Get("Content-Type"))
		}
		for p, b := range seen {
			if b == body {
				t.Errorf("%s and %s are the same picture", p, path)
			}
		}
		seen[path] = body
	}
	for _, path := range []string{"/images/no-such-thing.svg", "/images/heavyweight-tee/Purple.svg", "/images/heavyweight-tee/%3Cscript%3E.svg"} {
		if res, _ := c.do("GET", path, nil); res.StatusCode != 404 {
			t.Errorf("%s: %d", path, res.StatusCode)
		}
	}
}

// The inspector exists only with -dev (Options.Dev).
func TestDev_TurnsOnTheInspector(t *testing.T) {
	for _, dev := range []bool{false, true} {
		s := shoptest.StartWith(t, shop.Options{Dev: dev, NoApprovals: true})
		res, err := http.Get(s.URL + inspector.Path + "?page=/products/heavyweight-tee")
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		want := map[bool]int{false: 404, true: 200}[dev]
		if res.StatusCode != want {
			t.Errorf("dev %v: %d, want %d", dev, res.StatusCode, want)
		}
		if csp := res.Header.Get("Content-Security-Policy"); dev != strings.Contains(csp, "frame-ancestors 'self'") {
			t.Errorf("dev %v: CSP %q", dev, csp)
		}
	}
}
