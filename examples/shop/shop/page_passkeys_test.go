package shop_test

import (
	"net/url"
	"strings"
	"testing"

	"github.com/affordances-go/affordances/examples/shop/shop"
	"github.com/affordances-go/affordances/examples/shop/shoptest"
)

// The password that addPasskey asks for is no oracle: wrong ones count as
// failed sign-ins, and after five within the window the next attempt is
// refused (429) without checking any password, the right one included.
func TestPasskeys_ThePasswordIsNoOracle(t *testing.T) {
	s := shoptest.StartWith(t, shop.Options{})
	ts := &testShop{url: s.URL, store: s.Store}
	p := ts.client(t, "")
	p.form("/login", url.Values{"_action": {"signIn"}, "email": {shop.DemoEmail}, "password": {shop.DemoPassword}})
	add := func(pw string) int {
		res, _ := p.form("/account", url.Values{"_action": {"addPasskey"}, "name": {"a key"}, "password": {pw},
			"credential": {`{"id":"x"}`}, "nonce": {"n"}})
		return res.StatusCode
	}
	for i := range 5 {
		if code := add("guess " + strings.Repeat("x", i)); code != 400 {
			t.Fatalf("wrong password %d: %d", i, code)
		}
	}
	if code := add(shop.DemoPassword); code != 429 {
		t.Errorf("the right password after five wrong ones: %d, want 429 before any check", code)
	}
}
