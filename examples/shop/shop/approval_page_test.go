package shop_test

import (
	"context"
	"html"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/affordances-go/affordances/examples/shop/shop"
	"github.com/affordances-go/affordances/examples/shop/shoptest"
)

// getAs reads a page with a session's cookie, as text (references
// unescaped).
func getAs(t *testing.T, s *shoptest.Shop, sess, path string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", s.URL+path, nil)
	req.AddCookie(&http.Cookie{Name: "sid", Value: sess})
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, html.UnescapeString(string(b))
}

// What the person approves is everything that will happen: the whole
// input beside the summary (saving the address included), values shown as
// data, which agent asks and why; and a standing approval never covers a
// call that would change the saved address it is bounded by.
func TestApprovalPage_ShowsEverythingThatWillHappen(t *testing.T) {
	s := shoptest.StartWith(t, shop.Options{})
	ctx := context.Background()
	c := grantedAgent(t, s, shop.Grant{Actions: []string{"addToCart", "placeOrder"}, OrderLimit: 5000, DayLimit: 5000})
	addTee(t, c, 1)
	before := s.Orders(t)

	// Saving the address alone is not covered by the standing approval.
	if w := c.Call("/checkout", "placeOrder", map[string]any{"saveAddress": true}); w.Code != 428 || w.Delta().ApprovalURL == "" {
		t.Fatalf("saveAddress on a standing approval: %d %s", w.Code, w.Body)
	}
	w := c.Call("/checkout", "placeOrder", map[string]any{"saveAddress": true, "address": map[string]any{
		"name": "Demo Shopper\u02ba, street \u02ba12 Rue", "street": "1 Attacker Way", "postcode": "10115", "city": "Berlin", "country": "DE"}})
	u := w.Delta().ApprovalURL
	if w.Code != 428 || u == "" || s.Orders(t) != before {
		t.Fatalf("an order to a new address, saved: %d %s", w.Code, w.Body)
	}
	demo, _ := s.Store.UserByEmail(ctx, shop.DemoEmail)
	sess, err := s.Store.CreateSession(ctx, demo)
	if err != nil {
		t.Fatal(err)
	}
	code, page := getAs(t, s, sess, u)
	if code != 200 {
		t.Fatalf("the approval page: %d", code)
	}
	for _, want := range []string{
		"Save this address for next orders", "yes", // the field the summary used to leave out
		"becomes your saved address",    // and the summary says it too
		"Deliver to › Name", "⟨U+02BA⟩", // the values as data, the look-alike quote visible
		"granted", // which agent (its token's label)
		"it goes to an address other than your saved one", // why the person is asked
		"An agent running in this browser could press this button",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the approval page does not show %q", want)
		}
	}
	if strings.Contains(page, "Shopper\u02ba") {
		t.Error("the look-alike quote is rendered as a quote")
	}

	// Within the amounts but past the day's use: the page says how much.
	c2 := grantedAgent(t, s, shop.Grant{Actions: []string{"addToCart", "placeOrder"}, OrderLimit: 5000, DayLimit: 4000})
	if w := c2.Call("/checkout", "placeOrder", map[string]any{}); w.Code != 200 {
		t.Fatalf("an order within the grant: %d %s", w.Code, w.Body)
	}
	addTee(t, c2, 1)
	w = c2.Call("/checkout", "placeOrder", map[string]any{})
	if _, page := getAs(t, s, sess, w.Delta().ApprovalURL); !strings.Contains(page, "29.00 EUR, with 29.00 EUR of 40.00 EUR used today") {
		t.Errorf("why, past the day's limit: %s", page)
	}

	// Another account's person sees the store's page saying so.
	other, err := s.Store.CreateUser(ctx, "other@example.com", "Other", "another long password")
	if err != nil {
		t.Fatal(err)
	}
	osess, _ := s.Store.CreateSession(ctx, other)
	code, page = getAs(t, s, osess, u)
	if code != http.StatusForbidden || !strings.Contains(page, "another account") || !strings.Contains(page, "/login?next=") ||
		!strings.Contains(page, "Heavyweight Supply") || strings.Contains(page, "Attacker") {
		t.Errorf("another account: %d %s", code, page)
	}
}
