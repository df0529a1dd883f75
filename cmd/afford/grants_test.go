package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/affordances-go/affordances/examples/shop/shop"
	"github.com/affordances-go/affordances/examples/shop/shoptest"
)

// The README's grant: the person, signed in on the account page, creates a
// token that may add to the cart and order up to 50 EUR; the agent with it
// buys a tee in four requests, without an approval page. Making the token
// is the person's alone: afford, signed in with the person's cookie, is
// refused.
func TestGrant_AnAgentBuysWithinIt(t *testing.T) {
	s := shoptest.StartWith(t, shop.Options{}) // approvals on, as go run ./examples/shop
	jar := filepath.Join(t.TempDir(), "jar.json")
	if code, out, errs := afford(t, nil, "call", "--cookie-jar", jar, s.URL+"/login", "signIn", "email=demo@example.com", "password=demo"); code != 0 {
		t.Fatalf("signIn: %d %s %s", code, out, errs)
	}
	code, out, errs := afford(t, nil, "call", "--cookie-jar", jar, "--json", s.URL+"/account", "createToken",
		"label=shopping agent", "actions=addToCart,placeOrder", "perCall=50", "perDay=50")
	if code == 0 || !strings.Contains(out+errs, "only a person") || regexp.MustCompile(`afk_`).MatchString(out) {
		t.Fatalf("an agent on the person's cookie made a token: %d %s %s", code, out, errs)
	}
	demo, err := s.Store.UserByEmail(context.Background(), shop.DemoEmail)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := s.Store.CreateGrantedToken(context.Background(), demo, "shopping agent",
		shop.Grant{Actions: []string{"addToCart", "placeOrder"}, OrderLimit: 5000, DayLimit: 5000})
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"AFFORD_TOKEN": tok}
	steps := [][]string{
		{"index", s.URL},
		{"get", s.URL + "/products/heavyweight-tee"},
		{"call", s.URL + "/products/heavyweight-tee", "addToCart", "sku=TEE-BLK-M"},
		{"call", "--json", s.URL + "/checkout", "placeOrder"},
	}
	for _, st := range steps {
		code, out, errs = afford(t, env, st...)
		if code != 0 {
			t.Fatalf("%v: %d %s %s", st, code, out, errs)
		}
	}
	var d struct {
		OK       bool   `json:"ok"`
		Redirect string `json:"redirect"`
	}
	json.Unmarshal([]byte(out), &d)
	if !d.OK || !strings.HasPrefix(d.Redirect, "/orders/") || strings.Contains(out, "approvalUrl") {
		t.Errorf("placeOrder within the grant: %s", out)
	}
	// Beyond it (two more tees, 58 EUR), the person is asked on the site.
	afford(t, env, "call", s.URL+"/products/heavyweight-tee", "addToCart", "sku=TEE-BLK-M", "qty=2")
	code, out, errs = afford(t, env, "call", "--no-wait", s.URL+"/checkout", "placeOrder")
	if code == 0 || !strings.Contains(out+errs, "/approvals/") {
		t.Errorf("placeOrder beyond the grant: %d %s %s", code, out, errs)
	}
	// And removeFromCart is not granted.
	code, out, errs = afford(t, env, "call", s.URL+"/cart", "removeFromCart", "sku=TEE-BLK-M")
	if code == 0 || !strings.Contains(out+errs, "scope removeFromCart") {
		t.Errorf("removeFromCart: %d %s %s", code, out, errs)
	}
}
