package shop_test

import (
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"testing"

	"github.com/affordances-go/affordances/examples/shop/shop"
	"github.com/affordances-go/affordances/examples/shop/shoptest"
)

// Behind the documented TLS proxy (-origins https://…, -trusted-proxies),
// the session, device and flash cookies are Secure and HSTS is sent.
func TestHTTPS_BehindTheTLSProxy(t *testing.T) {
	s := shoptest.StartWith(t, shop.Options{Origins: []string{"https://shop.example"},
		TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}})
	form := url.Values{"_action": {"signIn"}, "email": {shop.DemoEmail}, "password": {shop.DemoPassword}}
	req, _ := http.NewRequest(http.MethodPost, s.URL+"/login", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", "https://shop.example")
	req.Header.Set("X-Forwarded-Proto", "https")
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign in: %d", res.StatusCode)
	}
	names := map[string]bool{}
	for _, c := range res.Cookies() {
		names[c.Name] = true
		if !c.Secure {
			t.Errorf("cookie %s is not Secure: %v", c.Name, res.Header["Set-Cookie"])
		}
	}
	if len(names) < 3 {
		t.Errorf("want the session, device and flash cookies: %v", res.Header["Set-Cookie"])
	}
	if got := res.Header.Get("Strict-Transport-Security"); !strings.HasPrefix(got, "max-age=31536000") {
		t.Errorf("HSTS: %q", got)
	}
}
