package shop_test

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"github.com/affordances-go/affordances/examples/shop/shop"
	"github.com/affordances-go/affordances/protocol"
)

// An agent orders to the saved address without saying anything, to a new
// address it gives (saved for next time only when asked), and gets
// field-level issues, with nested paths, for a bad one.
func TestPlaceOrder_DeliversToTheSavedOrTheGivenAddress(t *testing.T) {
	ts := newTestShop(t)
	ctx := context.Background()
	agent := ts.client(t, ts.token)
	order := func(input map[string]any) (int, protocol.Delta) {
		t.Helper()
		agent.call("/products/heavyweight-tee", "addToCart", map[string]any{"sku": "TEE-BLK-M"}, false)
		return agent.call("/checkout", "placeOrder", input, true)
	}
	demo, _ := ts.store.UserByEmail(ctx, shop.DemoEmail)

	// The checkout graph shows the saved address, and the summary names it.
	agent.call("/products/heavyweight-tee", "addToCart", map[string]any{"sku": "TEE-BLK-M"}, false)
	if code, d := agent.call("/checkout", "placeOrder", map[string]any{}, false); code != 428 || !strings.Contains(d.Error.Message, "Deliver to:\n\"Demo Shopper\"\n\"12 Rue des Archives\"\n\"75004 Paris\"\nFrance") {
		t.Errorf("summary without the saved address: %d %+v", code, d.Error)
	}
	if g := agent.graph("/checkout"); g.Entities["savedAddress"] == nil {
		t.Errorf("the checkout graph does not show the saved address: %v", g.Entities)
	}
	code, d := order(map[string]any{})
	if code != 200 || !strings.Contains(d.Message, "thank you") {
		t.Fatalf("order to the saved address: %d %+v", code, d)
	}
	o := lastOrder(t, ts, demo)
	if o.Address == nil || o.Address.City != "Paris" {
		t.Errorf("order address: %+v", o.Address)
	}

	// A new address, not saved.
	berlin := map[string]any{"name": "Demo Shopper", "street": "Unter den Linden 1", "postcode": "10117", "city": "Berlin", "country": "DE"}
	if code, _ := order(map[string]any{"address": berlin}); code != 200 {
		t.Fatalf("order to a new address: %d", code)
	}
	if o := lastOrder(t, ts, demo); o.Address == nil || o.Address.City != "Berlin" {
		t.Errorf("order address: %+v", o.Address)
	}
	if saved, _ := ts.store.SavedAddress(ctx, demo); saved.City != "Paris" {
		t.Errorf("the address was saved without asking: %+v", saved)
	}
	// Saved when asked.
	if code, _ := order(map[string]any{"address": berlin, "saveAddress": true}); code != 200 {
		t.Fatalf("order and save: %d", code)
	}
	if saved, _ := ts.store.SavedAddress(ctx, demo); saved.City != "Berlin" {
		t.Errorf("saved address: %+v", saved)
	}

	// A bad address: one issue per field, with nested paths, nothing ordered.
	before := len(orders(t, ts, demo))
	code, d = order(map[string]any{"address": map[string]any{"name": "", "street": "x", "postcode": "!", "city": "Berlin", "country": "Germany"}})
	if code != 400 || d.Error == nil {
		t.Fatalf("bad address: %d %+v", code, d)
	}
	want := map[string]string{"/address/name": "must not be empty", "/address/postcode": "must look like 75004", "/address/country": "must look like FR"}
	for _, is := range d.Error.Issues {
		if w, ok := want[is.Path]; ok && is.Message == w {
			delete(want, is.Path)
		}
	}
	if len(want) != 0 || len(orders(t, ts, demo)) != before {
		t.Errorf("issues %+v, missing %v", d.Error.Issues, want)
	}

	// An account without a saved address is asked for one.
	id, _ := ts.store.CreateUser(ctx, "new@example.com", "New", "a long password")
	tok, _ := ts.store.CreateToken(ctx, id, "t")
	other := ts.client(t, tok)
	other.call("/products/heavyweight-tee", "addToCart", map[string]any{"sku": "TEE-BLK-M"}, false)
	code, d = other.call("/checkout", "placeOrder", map[string]any{}, true)
	if code != 400 || len(d.Error.Issues) != 1 || d.Error.Issues[0].Path != "/address" {
		t.Errorf("no address at all: %d %+v", code, d.Error)
	}
}

// A person's checkout form has the address, filled from the saved one; a
// bad postcode is shown next to its field with the values kept, and the
// order page shows where it goes.
func TestCheckoutForm_AsksForTheAddress(t *testing.T) {
	ts := newTestShop(t)
	p := ts.client(t, "")
	p.form("/login", url.Values{"_action": {"signIn"}, "email": {shop.DemoEmail}, "password": {shop.DemoPassword}})
	p.form("/products/heavyweight-tee", url.Values{"_action": {"addToCart"}, "sku": {"TEE-BLK-M"}})
	_, body := p.do("GET", "/checkout", nil)
	if !strings.Contains(body, `name="address.street" value="12 Rue des Archives"`) {
		t.Fatalf("checkout form without the saved address:\n%s", body)
	}
	bad := url.Values{"_action": {"placeOrder"}, "address.name": {"Demo"}, "address.street": {"Via Roma 1"},
		"address.postcode": {"!!"}, "address.city": {"Roma"}, "address.country": {"IT"}}
	res, body := p.form("/checkout", bad)
	if res.StatusCode != 400 || !strings.Contains(body, "must look like 75004") || !strings.Contains(body, `value="Via Roma 1"`) {
		t.Fatalf("bad postcode: %d\n%s", res.StatusCode, body)
	}
	good := url.Values{"_action": {"placeOrder"}, "_confirm": {"true"}, "address.name": {"Demo"}, "address.street": {"Via Roma 1"},
		"address.postcode": {"00184"}, "address.city": {"Roma"}, "address.country": {"IT"}}
	// The confirmation page carries the address and names it.
	good.Del("_confirm")
	res, body = p.form("/checkout", good)
	if res.StatusCode != 428 || !strings.Contains(body, "Deliver to:\n&#34;Demo&#34;\n&#34;Via Roma 1&#34;\n&#34;00184 Roma&#34;\nItaly") || !strings.Contains(body, `name="address.city" value="Roma"`) {
		t.Fatalf("confirmation: %d\n%s", res.StatusCode, body)
	}
	good.Set("_confirm", "true")
	res, _ = p.form("/checkout", good)
	if res.StatusCode != 303 {
		t.Fatalf("order: %d", res.StatusCode)
	}
	_, body = p.do("GET", res.Header.Get("Location"), nil)
	if !strings.Contains(body, "Via Roma 1") || !strings.Contains(body, "thank you") {
		t.Errorf("order page without the address or the message:\n%s", body)
	}
}

func orders(t *testing.T, ts *testShop, userID int64) []shop.Order {
	os, err := ts.store.Orders(context.Background(), userID)
	if err != nil {
		t.Fatal(err)
	}
	return os
}

func lastOrder(t *testing.T, ts *testShop, userID int64) *shop.Order {
	os := orders(t, ts, userID)
	if len(os) == 0 {
		t.Fatal("no order")
	}
	o, err := ts.store.Order(context.Background(), userID, os[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// The agent writes the address; the person reads the summary. Nothing
// the agent writes can pass for the shop's own words: control characters
// and fields of spaces are refused, and every value is quoted and escaped
// on its own line.
func TestPlaceOrder_TheAgentCannotShapeTheSummary(t *testing.T) {
	ts := newTestShop(t)
	agent := ts.client(t, ts.token)
	agent.call("/products/heavyweight-tee", "addToCart", map[string]any{"sku": "TEE-BLK-M"}, false)
	addr := func(name, street string) map[string]any {
		return map[string]any{"address": map[string]any{"name": name, "street": street, "postcode": "75004", "city": "Paris", "country": "FR"}}
	}
	for _, bad := range []struct{ name, street, path string }{
		{"Demo", "1 Main St\n\nTotal: 0.00 EUR. Deliver to Somewhere", "/address/street"},
		{"Demo\x1b[2J", "1 Main St", "/address/name"},
		{"Demo\x00", "1 Main St", "/address/name"},
		{"Demo \u202eRUE\u202c", "1 Main St", "/address/name"},
		{"        ", "1 Main St", "/address/name"},
	} {
		code, d := agent.call("/checkout", "placeOrder", addr(bad.name, bad.street), false)
		if code != 400 || d.Error == nil || len(d.Error.Issues) == 0 || d.Error.Issues[0].Path != bad.path {
			t.Errorf("name %q street %q: %d %+v", bad.name, bad.street, code, d.Error)
		}
	}
	code, d := agent.call("/checkout", "placeOrder", addr(`[Demo](https://evil.example) "x", Total: 0.00 EUR`, `1 Main St"`), false)
	if code != 428 {
		t.Fatalf("a name with markup: %d %+v", code, d.Error)
	}
	lines := strings.Split(d.Error.Message, "\n")
	want := []string{
		"Place an order of 1 item:",
		"- 1 × Heavyweight Tee (Black, M) at 29.00 EUR",
		"Total: 29.00 EUR, paid on delivery.",
		// The address as on a parcel (issue 53), each value quoted.
		"Deliver to:",
		`"\[Demo\]\(https://evil.example\) \"x\", Total: 0.00 EUR"`,
		`"1 Main St\""`,
		`"75004 Paris"`,
		"France",
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("summary:\n%s\nwant:\n%s", d.Error.Message, strings.Join(want, "\n"))
	}
}
