package shop_test

import (
	"context"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/affordances-go/affordances/examples/shop/shop"
	"github.com/affordances-go/affordances/protocol"
)

// Forms, tokens and sign-up details of the store.

// A form's own fields (a CSRF token, a tracking parameter) never fail an
// action, whether it has input fields or none.
func TestForms_ExtraFieldsAreIgnored(t *testing.T) {
	ts := newTestShop(t)
	p := ts.client(t, "")
	extra := func(v url.Values) url.Values {
		v.Set("csrf_token", "abc123")
		v.Set("utm_source", "newsletter")
		return v
	}
	p.form("/login", extra(url.Values{"_action": {"signIn"}, "email": {shop.DemoEmail}, "password": {shop.DemoPassword}}))
	p.form("/products/heavyweight-tee", extra(url.Values{"_action": {"addToCart"}, "sku": {"TEE-BLK-M"}}))
	res, body := p.form("/checkout", extra(url.Values{"_action": {"placeOrder"}}))
	if res.StatusCode != 428 || !strings.Contains(body, "Please confirm") {
		t.Fatalf("placeOrder with extra fields: %d %s", res.StatusCode, body)
	}
	res, _ = p.form("/checkout", extra(url.Values{"_action": {"placeOrder"}, "_confirm": {"true"}}))
	if res.StatusCode != 303 || !strings.HasPrefix(res.Header.Get("Location"), "/orders/") {
		t.Fatalf("confirmed placeOrder with extra fields: %d %v", res.StatusCode, res.Header)
	}
	res, _ = p.form("/account", extra(url.Values{"_action": {"signOut"}}))
	if res.StatusCode != 303 || res.Header.Get("Location") != "/" {
		t.Fatalf("signOut with extra fields: %d %v", res.StatusCode, res.Header)
	}
}

// Revoking a token that does not exist is not_found: the thing named is
// not there, which is not the same as an action that cannot run now.
func TestRevokeToken_OfAMissingTokenIsNotFound(t *testing.T) {
	ts := newTestShop(t)
	person := ts.client(t, "")
	person.call("/login", "signIn", map[string]any{"email": shop.DemoEmail, "password": shop.DemoPassword}, false)
	res, body := person.form("/account", url.Values{"_action": {"revokeToken"}, "_confirm": {"true"}, "id": {"987654"}})
	if res.StatusCode != 404 || !strings.Contains(body, "987654") {
		t.Fatalf("revoke a missing token: %d %s", res.StatusCode, body)
	}
}

// A token is never stored in clear: the person's form has it sealed
// until it is shown, once.
func TestCreateToken_NeverStoredInClear(t *testing.T) {
	ts := newTestShop(t)
	p := ts.client(t, "")
	p.call("/login", "signIn", map[string]any{"email": shop.DemoEmail, "password": shop.DemoPassword}, false)
	if res, body := p.form("/account", url.Values{"_action": {"createToken"}, "label": {"form"}}); res.StatusCode != 303 {
		t.Fatalf("create: %d %s", res.StatusCode, body)
	}
	dump, err := ts.store.DumpText(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(dump, "afk_") {
		t.Fatal("a token in clear in the database")
	}
	_, body := p.do("GET", "/account", nil)
	if !regexp.MustCompile(`<code class="token">afk_[A-Za-z0-9_-]+</code>`).MatchString(body) {
		t.Fatalf("the form's token is not shown once")
	}
}

// One mailbox, one account; a password is more than spaces; a name is
// text.
func TestSignUp_Details(t *testing.T) {
	ts := newTestShop(t)
	c := ts.client(t, "")
	signUp := func(name, email, password string) (int, protocol.Delta) {
		return ts.client(t, "").call("/signup", "signUp", map[string]any{"name": name, "email": email, "password": password}, false)
	}
	if _, err := ts.store.CreateUser(context.Background(), "x@example.com", "X", "a long password"); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, email, password, path string }{
		{"X", "x@example.com.", "a long password", "/email"},
		{"X", "X@Example.COM..", "a long password", "/email"},
		{"Y", "y@example.com", "        ", "/password"},
		{"   ", "z@example.com", "a long password", "/name"},
		{"Eve\x1b[2J", "w@example.com", "a long password", "/name"},
	} {
		code, d := signUp(tc.name, tc.email, tc.password)
		if code != 400 || len(d.Error.Issues) == 0 || d.Error.Issues[0].Path != tc.path {
			t.Errorf("%q %q %q: %d %+v", tc.name, tc.email, tc.password, code, d.Error)
		}
	}
	if code, _ := c.call("/login", "signIn", map[string]any{"email": "x@example.com.", "password": "a long password"}, false); code != 200 {
		t.Errorf("sign in with the trailing dot: %d", code)
	}
}
