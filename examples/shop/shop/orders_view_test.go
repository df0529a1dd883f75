package shop_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/affordances-go/affordances/examples/shop/shoptest"
	"github.com/affordances-go/affordances/protocol"
)

// The orders list shows what each order holds, and a just-placed order
// says where it will be delivered, without repeating its status.
func TestOrders_ListItemsAndSayWhatWillHappen(t *testing.T) {
	s := shoptest.Start(t)
	do := func(method, path, body, accept string) string {
		req, _ := http.NewRequest(method, s.URL+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+s.Token)
		req.Header.Set("Accept", accept)
		if body != "" {
			req.Header.Set("Content-Type", protocol.MediaType)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return string(b)
	}
	do("POST", "/products/heavyweight-tee", `{"action":"addToCart","input":{"sku":"TEE-BLK-M","qty":2}}`, protocol.MediaType)
	var d protocol.Delta
	json.Unmarshal([]byte(do("POST", "/checkout", `{"action":"placeOrder","confirm":true}`, protocol.MediaType)), &d)
	if !d.OK {
		t.Fatalf("placeOrder: %+v", d.Error)
	}
	if list := do("GET", "/orders", "", "text/html"); !strings.Contains(list, "2 × Heavyweight Tee (Black, M)") {
		t.Errorf("the orders list does not show the items:\n%s", list)
	}
	order := do("GET", d.Redirect, "", "text/html")
	if !strings.Contains(order, "Will be delivered to") || strings.Contains(order, "Delivered to") || strings.Contains(order, "status-placed") {
		t.Errorf("a placed order's page:\n%s", order)
	}
}

// A colour link chooses the picture and the first size in stock of that
// colour, without JavaScript; the full stock table is one click away.
func TestProduct_ColourLinksChooseThePicture(t *testing.T) {
	s := shoptest.Start(t)
	res, err := http.Get(s.URL + "/products/heavyweight-tee?colour=White")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	page := string(b)
	for _, want := range []string{`/images/heavyweight-tee/White.svg`, `<option value="TEE-WHI-S" selected>`,
		`<a href="?colour=White" aria-current="true">White</a>`, `<details class="stock">`} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
}
