package shop_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/affordances-go/affordances/examples/shop/shop"
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

// The checkout's button confirms the cart the page showed: pressed after
// the cart changed (an agent added to it meanwhile), it places nothing and
// shows the confirmation page with the new order, in the store's layout.
func TestCheckout_TheButtonConfirmsWhatThePageShowed(t *testing.T) {
	s := shoptest.Start(t)
	ctx := context.Background()
	demo, _ := s.Store.UserByEmail(ctx, shop.DemoEmail)
	sess, err := s.Store.CreateSession(ctx, demo)
	if err != nil {
		t.Fatal(err)
	}
	agent := func(body string) {
		req, _ := http.NewRequest("POST", s.URL+"/products/heavyweight-tee", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+s.Token)
		req.Header.Set("Content-Type", protocol.MediaType)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
	}
	person := func(method, path string, form url.Values) (int, string) {
		var body io.Reader
		if form != nil {
			body = strings.NewReader(form.Encode())
		}
		req, _ := http.NewRequest(method, s.URL+path, body)
		req.AddCookie(&http.Cookie{Name: "sid", Value: sess})
		req.Header.Set("Accept", "text/html")
		if form != nil {
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			req.Header.Set("Origin", s.URL)
		}
		hc := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		res, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	agent(`{"action":"addToCart","input":{"sku":"TEE-BLK-M"}}`)
	_, page := person("GET", "/checkout", nil)
	m := regexp.MustCompile(`name="_basis" value="([0-9a-f]+)"`).FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("the checkout has no basis:\n%s", page)
	}
	form := url.Values{"_action": {"placeOrder"}, "_confirm": {"true"}, "_basis": {m[1]},
		"address.name": {"Demo Shopper"}, "address.street": {"12 Rue des Archives"}, "address.postcode": {"75004"},
		"address.city": {"Paris"}, "address.country": {"FR"}}

	agent(`{"action":"addToCart","input":{"sku":"TEE-WHI-L"}}`) // after the page was shown
	code, body := person("POST", "/checkout", form)
	if s.Orders(t) != 0 || !strings.Contains(body, "Please confirm") || !strings.Contains(body, "Heavyweight Tee (White, L)") || !strings.Contains(body, `class="bottom"`) {
		t.Fatalf("a changed cart: %d, %d orders\n%s", code, s.Orders(t), body)
	}
	// The same press on an unchanged page places the order at once.
	_, page = person("GET", "/checkout", nil)
	form.Set("_basis", regexp.MustCompile(`name="_basis" value="([0-9a-f]+)"`).FindStringSubmatch(page)[1])
	if code, _ := person("POST", "/checkout", form); code != http.StatusSeeOther || s.Orders(t) != 1 {
		t.Fatalf("an unchanged cart: %d, %d orders", code, s.Orders(t))
	}
}
