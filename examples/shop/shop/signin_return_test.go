package shop_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/affordances-go/affordances/examples/shop/shop"
	"github.com/affordances-go/affordances/examples/shop/shoptest"
)

// Signing in from a page that sent the person there (?next=) brings them
// back to it; an address of another site is never followed.
func TestSignIn_ComesBack(t *testing.T) {
	s := shoptest.Start(t)
	for next, want := range map[string]string{
		"/checkout":             "/checkout",
		"/approvals/abc":        "/approvals/abc",
		"//evil.example/":       "/account",
		"https://evil.example/": "/account",
		"":                      "/account",
	} {
		form := url.Values{"_action": {"signIn"}, "email": {shop.DemoEmail}, "password": {shop.DemoPassword}}
		req, _ := http.NewRequest("POST", s.URL+"/login?next="+url.QueryEscape(next), strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Origin", s.URL)
		hc := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		res, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != want {
			t.Errorf("next=%q: %d to %q, want %q", next, res.StatusCode, res.Header.Get("Location"), want)
		}
	}
}
