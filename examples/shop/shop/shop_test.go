package shop_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/affordances-go/affordances/examples/shop/shop"
	"github.com/affordances-go/affordances/examples/shop/shoptest"
	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site/sitetest"
	"github.com/affordances-go/affordances/site/tokens"
)

// testShop is the shop on a loopback port with a fresh database.
type testShop struct {
	url   string
	store *shop.Store
	token string // a bearer token of the demo account
}

func newTestShop(t testing.TB) *testShop {
	t.Helper()
	s := shoptest.Start(t)
	return &testShop{url: s.URL, store: s.Store, token: s.Token}
}

// client is an HTTP client with a cookie jar, acting as an agent (bearer
// or cookie) or as a person's browser.
type client struct {
	t      testing.TB
	base   string
	http   *http.Client
	bearer string
}

func (ts *testShop) client(t testing.TB, bearer string) *client {
	jar, _ := cookiejar.New(nil)
	return &client{t: t, base: ts.url, bearer: bearer,
		http: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

func (c *client) do(method, path string, body io.Reader, header ...string) (*http.Response, string) {
	c.t.Helper()
	req, err := http.NewRequest(method, c.base+path, body)
	if err != nil {
		c.t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	if c.bearer != "" {
		req.Header.Set("Authorization", "Bearer "+c.bearer)
	}
	res, err := c.http.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res, string(b)
}

// graph reads a page's graph, with its md (which graphs carry when asked).
func (c *client) graph(path string) protocol.Graph {
	c.t.Helper()
	res, body := c.do("GET", path, nil, "Accept", protocol.MediaType+"; md=1")
	if res.StatusCode != 200 {
		c.t.Fatalf("GET %s: %d %s", path, res.StatusCode, body)
	}
	var g protocol.Graph
	if err := json.Unmarshal([]byte(body), &g); err != nil {
		c.t.Fatal(err)
	}
	return g
}

// call runs an action as an agent; cookie calls carry the site's Origin.
func (c *client) call(path, action string, input any, confirm bool) (int, protocol.Delta) {
	c.t.Helper()
	in, _ := json.Marshal(input)
	body, _ := json.Marshal(map[string]any{"action": action, "input": json.RawMessage(in), "confirm": confirm})
	res, text := c.do("POST", path, strings.NewReader(string(body)), "Content-Type", protocol.MediaType, "Origin", c.base)
	var d protocol.Delta
	if err := json.Unmarshal([]byte(text), &d); err != nil {
		c.t.Fatalf("POST %s %s: not a delta: %d %s", path, action, res.StatusCode, text)
	}
	return res.StatusCode, d
}

// form posts an HTML form as a browser on the site would.
func (c *client) form(path string, values url.Values) (*http.Response, string) {
	c.t.Helper()
	return c.do("POST", path, strings.NewReader(values.Encode()), "Content-Type", "application/x-www-form-urlencoded", "Origin", c.base)
}

func stock(t testing.TB, ts *testShop, sku string) int {
	t.Helper()
	n, err := ts.store.Stock(context.Background(), sku)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestAgent_BuysABlackMTeeWithABearerToken(t *testing.T) {
	ts := newTestShop(t)
	before := stock(t, ts, "TEE-BLK-M")
	agent := ts.client(t, ts.token)

	// Plan from the index alone.
	res, body := agent.do("GET", protocol.WellKnownPath, nil)
	var idx protocol.SiteIndex
	if err := json.Unmarshal([]byte(body), &idx); err != nil || res.StatusCode != 200 {
		t.Fatalf("index: %d %s", res.StatusCode, body)
	}
	routes := map[string][]string{}
	for _, r := range idx.Routes {
		for _, a := range r.Actions {
			routes[r.Route] = append(routes[r.Route], a.Name)
		}
	}
	if !contains(routes["/products/[slug]"], "addToCart") || !contains(routes["/checkout"], "placeOrder") {
		t.Fatalf("index routes %v", routes)
	}

	// Straight to the concrete URL of the route.
	code, d := agent.call("/products/heavyweight-tee", "addToCart", map[string]any{"sku": "TEE-BLK-M"}, false)
	if code != 200 || !d.OK || d.Changed["cart"] == nil {
		t.Fatalf("addToCart: %d %+v", code, d)
	}
	code, d = agent.call("/checkout", "placeOrder", map[string]any{}, false)
	if code != 428 || d.Error.Code != protocol.CodeConfirmRequired || !strings.Contains(d.Error.Message, "Heavyweight Tee (Black, M)") || !strings.Contains(d.Error.Message, "29.00 EUR") {
		t.Fatalf("placeOrder without confirm: %d %+v", code, d)
	}
	if got := stock(t, ts, "TEE-BLK-M"); got != before {
		t.Fatalf("stock moved before confirmation: %d", got)
	}
	code, d = agent.call("/checkout", "placeOrder", map[string]any{}, true)
	if code != 200 || !d.OK || !strings.HasPrefix(d.Redirect, "/orders/") {
		t.Fatalf("placeOrder: %d %+v", code, d)
	}
	if got := stock(t, ts, "TEE-BLK-M"); got != before-1 {
		t.Fatalf("stock %d, want %d", got, before-1)
	}
	g := agent.graph(d.Redirect)
	if o := sitetest.Entity[struct{ Status string }](t, g, "order"); o.Status != "placed" {
		t.Errorf("order %+v", o)
	}
}

func TestPerson_BuysWithFormsOnly(t *testing.T) {
	ts := newTestShop(t)
	before := stock(t, ts, "TEE-BLK-M")
	p := ts.client(t, "")

	res, body := p.do("GET", "/products/heavyweight-tee", nil)
	if res.StatusCode != 200 || !strings.Contains(body, `<link rel="affordances" href="?affordances=1">`) || !strings.Contains(body, `value="TEE-BLK-M"`) {
		t.Fatalf("product page: %d", res.StatusCode)
	}
	res, _ = p.form("/products/heavyweight-tee", url.Values{"_action": {"addToCart"}, "sku": {"TEE-BLK-M"}, "qty": {"1"}})
	if res.StatusCode != 303 {
		t.Fatalf("add to cart: %d", res.StatusCode)
	}
	_, body = p.do("GET", "/cart", nil)
	if !strings.Contains(body, "TEE-BLK-M") {
		t.Fatalf("cart does not show the tee")
	}
	// Checkout asks to sign in first.
	_, body = p.do("GET", "/checkout", nil)
	if !strings.Contains(body, "sign in first") {
		t.Fatalf("checkout as guest: %s", body)
	}
	res, _ = p.form("/login", url.Values{"_action": {"signIn"}, "email": {shop.DemoEmail}, "password": {shop.DemoPassword}})
	if res.StatusCode != 303 || res.Header.Get("Location") != "/account" {
		t.Fatalf("sign in: %d %v", res.StatusCode, res.Header)
	}
	// The confirmation page comes first, with the summary.
	res, body = p.form("/checkout", url.Values{"_action": {"placeOrder"}})
	if res.StatusCode != 428 || !strings.Contains(body, "Please confirm") || !strings.Contains(body, "Heavyweight Tee (Black, M)") {
		t.Fatalf("confirmation page: %d %s", res.StatusCode, body)
	}
	if got := stock(t, ts, "TEE-BLK-M"); got != before {
		t.Fatal("ordered before confirming")
	}
	res, _ = p.form("/checkout", url.Values{"_action": {"placeOrder"}, "_confirm": {"true"}})
	loc := res.Header.Get("Location")
	if res.StatusCode != 303 || !strings.HasPrefix(loc, "/orders/") {
		t.Fatalf("confirm: %d %v", res.StatusCode, res.Header)
	}
	_, body = p.do("GET", loc, nil)
	if !strings.Contains(body, "placed") || !strings.Contains(body, "Heavyweight Tee") {
		t.Fatalf("order page: %s", body)
	}
	if got := stock(t, ts, "TEE-BLK-M"); got != before-1 {
		t.Fatalf("stock %d, want %d", got, before-1)
	}
}

func TestGuestCart_IsMergedAtSignIn(t *testing.T) {
	ts := newTestShop(t)
	// The demo account already has a line in its cart.
	agent := ts.client(t, ts.token)
	agent.call("/products/heavyweight-tee", "addToCart", map[string]any{"sku": "TEE-BLK-M", "qty": 2}, false)

	guest := ts.client(t, "")
	code, d := guest.call("/products/heavyweight-tee", "addToCart", map[string]any{"sku": "TEE-BLK-M", "qty": 1}, false)
	if code != 200 {
		t.Fatalf("guest add: %d %+v", code, d)
	}
	guest.call("/products/canvas-tote", "addToCart", map[string]any{"sku": "TOTE-NAT-ONESIZE"}, false)
	if c := sitetest.Entity[cartJSON](t, guest.graph("/cart"), "cart"); c.Count != 2 {
		t.Fatalf("guest cart %+v", c)
	}
	code, d = guest.call("/login", "signIn", map[string]any{"email": shop.DemoEmail, "password": shop.DemoPassword}, false)
	if code != 200 || d.Redirect != "/account" {
		t.Fatalf("sign in: %d %+v", code, d)
	}
	lines := map[string]int{}
	for _, l := range sitetest.Entity[cartJSON](t, guest.graph("/cart"), "cart").Lines {
		lines[l.SKU] = l.Qty
	}
	if lines["TEE-BLK-M"] != 3 || lines["TOTE-NAT-ONESIZE"] != 1 || len(lines) != 2 {
		t.Errorf("merged cart %v", lines)
	}
}

func TestCookieAgent_IsHeldToTheOriginRule(t *testing.T) {
	ts := newTestShop(t)
	c := ts.client(t, "")
	c.call("/login", "signIn", map[string]any{"email": shop.DemoEmail, "password": shop.DemoPassword}, false)
	res, body := c.do("POST", "/products/heavyweight-tee", strings.NewReader(`{"action":"addToCart","input":{"sku":"TEE-BLK-M"}}`),
		"Content-Type", protocol.MediaType, "Origin", "http://evil.example")
	if res.StatusCode != 403 {
		t.Errorf("cross-origin cookie call: %d %s", res.StatusCode, body)
	}
	res, _ = c.do("POST", "/products/heavyweight-tee", strings.NewReader(url.Values{"_action": {"addToCart"}, "sku": {"TEE-BLK-M"}}.Encode()),
		"Content-Type", "application/x-www-form-urlencoded")
	if res.StatusCode != 403 {
		t.Errorf("form post without Origin: %d", res.StatusCode)
	}
}

func TestTokens_CreateShowOnceRevoke(t *testing.T) {
	ts := newTestShop(t)
	p := ts.client(t, "")
	p.form("/login", url.Values{"_action": {"signIn"}, "email": {shop.DemoEmail}, "password": {shop.DemoPassword}})
	res, _ := p.form("/account", url.Values{"_action": {"createToken"}, "label": {"my agent"}})
	if res.StatusCode != 303 {
		t.Fatalf("create: %d", res.StatusCode)
	}
	_, body := p.do("GET", "/account", nil)
	m := regexp.MustCompile(`<code class="token">(afk_[A-Za-z0-9_-]+)</code>`).FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("token not shown:\n%s", body)
	}
	if _, again := p.do("GET", "/account", nil); strings.Contains(again, m[1]) {
		t.Error("token shown twice")
	}
	agent := ts.client(t, m[1])
	if g := agent.graph("/account"); g.Entities["profile"] == nil {
		t.Fatalf("the new token does not sign in: %v", g.Entities)
	}
	var id int64
	for _, tk := range sitetest.Entity[tokens.Listing](t, agent.graph("/account"), "tokens").Tokens {
		if tk.Label == "my agent" {
			id = tk.ID
		}
	}
	// Credentials are the person's: no agent can mint a token or revoke
	// one, its own included, with a token or riding the person's session.
	for _, c := range []*client{agent, p} {
		if code, d := c.call("/account", "createToken", map[string]any{"label": "more"}, false); code != 403 || !strings.Contains(d.Error.Message, "only a person") {
			t.Errorf("an agent minting a token: %d %+v", code, d.Error)
		}
		if code, d := c.call("/account", "revokeToken", map[string]any{"id": id}, true); code != 403 || !strings.Contains(d.Error.Message, "only a person") {
			t.Errorf("an agent revoking a token: %d %+v", code, d.Error)
		}
	}
	if res, body := p.form("/account", url.Values{"_action": {"revokeToken"}, "_confirm": {"true"}, "id": {strconv.FormatInt(id, 10)}}); res.StatusCode != 303 {
		t.Fatalf("revoke: %d %s", res.StatusCode, body)
	}
	if res, _ := agent.do("GET", "/account", nil, "Accept", protocol.MediaType); res.StatusCode != 401 {
		t.Errorf("revoked token still works: %d", res.StatusCode)
	}
}

func TestCancelOrder_PutsStockBackUntilShipped(t *testing.T) {
	ts := newTestShop(t)
	agent := ts.client(t, ts.token)
	before := stock(t, ts, "TEE-WHI-L")
	agent.call("/products/heavyweight-tee", "addToCart", map[string]any{"sku": "TEE-WHI-L", "qty": 2}, false)
	_, d := agent.call("/checkout", "placeOrder", map[string]any{}, true)
	order := d.Redirect
	if code, d := agent.call(order, "cancelOrder", map[string]any{}, false); code != 428 || !strings.Contains(d.Error.Message, "2 items") {
		t.Fatalf("cancel without confirm: %d %+v", code, d)
	}
	if code, d := agent.call(order, "cancelOrder", map[string]any{}, true); code != 200 {
		t.Fatalf("cancel: %d %+v", code, d)
	}
	if got := stock(t, ts, "TEE-WHI-L"); got != before {
		t.Errorf("stock %d after cancelling, want %d", got, before)
	}
	// A shipped order cannot be cancelled.
	agent.call("/products/heavyweight-tee", "addToCart", map[string]any{"sku": "TEE-WHI-L"}, false)
	_, d = agent.call("/checkout", "placeOrder", map[string]any{}, true)
	var id int64
	fmt.Sscanf(d.Redirect, "/orders/%d", &id)
	ts.store.MarkShipped(context.Background(), id)
	if code, d := agent.call(d.Redirect, "cancelOrder", map[string]any{}, true); code != 409 || d.Error.Message != "the order is shipped" {
		t.Errorf("cancel shipped: %d %+v", code, d)
	}
	// Another shopper's order does not exist for this one.
	other := ts.client(t, "")
	other.call("/login", "signIn", map[string]any{"email": shop.DemoEmail, "password": "wrong"}, false)
	if res, _ := other.do("GET", d.Redirect, nil, "Accept", protocol.MediaType); res.StatusCode != 404 {
		t.Errorf("guest reading an order: %d", res.StatusCode)
	}
	// A person who is not signed in is sent to sign in.
	if res, _ := other.do("GET", d.Redirect, nil); res.StatusCode != 303 || res.Header.Get("Location") != "/login" {
		t.Errorf("guest opening an order in a browser: %d %v", res.StatusCode, res.Header)
	}
}

// TestConcurrentBuyers_NeverOversellAndNeverLoseAnOrder has 32 shoppers
// race for the last 5 items of one size.
func TestConcurrentBuyers_NeverOversellAndNeverLoseAnOrder(t *testing.T) {
	ts := newTestShop(t)
	ctx := context.Background()
	const buyers, left = 32, 5
	const sku = "HOOD-GRE-M"
	for stock(t, ts, sku) > left { // drain the size down to the last items
		u, _ := ts.store.CreateUser(ctx, fmt.Sprintf("drain%d@example.com", stock(t, ts, sku)), "Drain", "x")
		ts.store.SaveAddress(ctx, u, testAddress)
		tok, _ := ts.store.CreateToken(ctx, u, "t")
		c := ts.client(t, tok)
		c.call("/products/everyday-hoodie", "addToCart", map[string]any{"sku": sku}, false)
		c.call("/checkout", "placeOrder", map[string]any{}, true)
	}
	clients := make([]*client, buyers)
	for i := range clients {
		u, err := ts.store.CreateUser(ctx, fmt.Sprintf("buyer%d@example.com", i), "Buyer", "x")
		if err != nil {
			t.Fatal(err)
		}
		ts.store.SaveAddress(ctx, u, testAddress)
		tok, _ := ts.store.CreateToken(ctx, u, "t")
		clients[i] = ts.client(t, tok)
		if code, d := clients[i].call("/products/everyday-hoodie", "addToCart", map[string]any{"sku": sku}, false); code != 200 {
			t.Fatalf("buyer %d add: %d %+v", i, code, d)
		}
	}
	var wg sync.WaitGroup
	codes := make([]int, buyers)
	deltas := make([]protocol.Delta, buyers)
	start := make(chan struct{})
	for i, c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			codes[i], deltas[i] = c.call("/checkout", "placeOrder", map[string]any{}, true)
		}()
	}
	close(start)
	wg.Wait()
	ok := 0
	for i, code := range codes {
		switch code {
		case 200:
			ok++
			// Every success is a real order of this buyer.
			if g := clients[i].graph(deltas[i].Redirect); g.Entities["order"] == nil {
				t.Errorf("buyer %d: order %s missing", i, deltas[i].Redirect)
			}
		case 409:
			if !strings.Contains(deltas[i].Error.Message, "sold out") {
				t.Errorf("buyer %d: %+v", i, deltas[i].Error)
			}
		default:
			t.Errorf("buyer %d: status %d %+v", i, code, deltas[i])
		}
	}
	if ok != left || stock(t, ts, sku) != 0 {
		t.Errorf("%d orders placed, stock %d; want %d and 0", ok, stock(t, ts, sku), left)
	}
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// cartJSON is the part of the cart entity the tests read.
type cartJSON struct {
	Count int `json:"count"`
	Lines []struct {
		SKU string `json:"sku"`
		Qty int    `json:"qty"`
	} `json:"lines"`
}

// testAddress is the saved address of the accounts tests create, so that
// they can order without giving one.
var testAddress = shop.Address{Name: "Test Buyer", Street: "1 Test Street", Postcode: "10115", City: "Berlin", Country: "DE"}
