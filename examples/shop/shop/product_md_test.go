package shop_test

import (
	"strings"
	"testing"

	"github.com/affordances-go/affordances/examples/shop/shop"
)

// The product's Markdown is what a Markdown reader (an agent asking for
// text/markdown, a WebMCP readPage) has instead of the entities: it
// carries every colour and size with its SKU and stock, as the HTML's
// stock table does, and still names what is sold out in a line.
func TestProductMD_CarriesEveryVariant(t *testing.T) {
	p := &shop.Product{Name: "Heavyweight Tee", Price: shop.Money{Amount: 2900, Currency: "EUR"}, Description: "A tee",
		Variants: []shop.Variant{
			{SKU: "TEE-BLK-S", Colour: "Black", Size: "S", Stock: 8},
			{SKU: "TEE-BLK-M", Colour: "Black", Size: "M", Stock: 12},
			{SKU: "TEE-WHI-S", Colour: "White", Size: "S", Stock: 0},
			{SKU: "TEE-WHI-M", Colour: "White", Size: "M", Stock: 3},
		}}
	md := shop.ProductMD(p)
	for _, want := range []string{
		"- Black: S 8 (TEE-BLK-S), M 12 (TEE-BLK-M)\n",
		"- White: S 0 (TEE-WHI-S), M 3 (TEE-WHI-M)\n",
		"Sold out: White S.\n",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the Markdown lacks %q:\n%s", want, md)
		}
	}
	// In stock in every size: no sold-out line.
	p.Variants[2].Stock = 1
	if md := shop.ProductMD(p); strings.Contains(md, "Sold out") {
		t.Errorf("a sold-out line with everything in stock:\n%s", md)
	}
}

// The checkout's Markdown shows the saved address the order goes to, as
// its HTML form does (prefilled), escaped: it is the person's own text,
// which an agent may have written there.
func TestCheckoutMD_ShowsTheSavedAddress(t *testing.T) {
	ts := newTestShop(t)
	agent := ts.client(t, ts.token)
	md := func() string {
		t.Helper()
		res, body := agent.do("GET", "/checkout", nil, "Accept", "text/markdown; actions=tools")
		if res.StatusCode != 200 {
			t.Fatalf("GET /checkout as Markdown: %d %s", res.StatusCode, body)
		}
		return body
	}
	if body := md(); !strings.Contains(body, `Saved delivery address, used when the order names none: "Demo Shopper", "12 Rue des Archives", "75004 Paris", France.`) {
		t.Errorf("the checkout's Markdown lacks the saved address:\n%s", body)
	}
	agent.call("/products/heavyweight-tee", "addToCart", map[string]any{"sku": "TEE-BLK-M"}, false)
	evil := map[string]any{"name": "Eve", "street": "[click](https://evil.example)", "postcode": "10117", "city": "Berlin", "country": "DE"}
	if code, d := agent.call("/checkout", "placeOrder", map[string]any{"address": evil, "saveAddress": true}, true); code != 200 {
		t.Fatalf("order and save: %d %+v", code, d)
	}
	agent.call("/products/heavyweight-tee", "addToCart", map[string]any{"sku": "TEE-BLK-M"}, false)
	body := md()
	if strings.Contains(body, "](https://evil.example)") {
		t.Errorf("the saved address is not escaped:\n%s", body)
	}
	if !strings.Contains(body, "Berlin") {
		t.Errorf("the new saved address is not shown:\n%s", body)
	}
}

// A product without sizes has no stock heading over nothing.
func TestProductMD_NoVariantsNoHeading(t *testing.T) {
	md := shop.ProductMD(&shop.Product{Name: "Gift card", Price: shop.Money{Amount: 2500, Currency: "EUR"}, Description: "Any amount"})
	if strings.Contains(md, "Stock") {
		t.Errorf("a stock heading without sizes:\n%s", md)
	}
}
