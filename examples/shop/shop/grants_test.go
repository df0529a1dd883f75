package shop_test

import (
	"context"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/affordances-go/affordances/botauth"
	"github.com/affordances-go/affordances/examples/shop/shop"
	"github.com/affordances-go/affordances/examples/shop/shoptest"
	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site"
	"github.com/affordances-go/affordances/site/sitetest"
)

// grantedAgent is an agent with a token the demo shopper granted.
func grantedAgent(t *testing.T, s *shoptest.Shop, g shop.Grant) *sitetest.Client {
	t.Helper()
	demo, err := s.Store.UserByEmail(context.Background(), shop.DemoEmail)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := s.Store.CreateGrantedToken(context.Background(), demo, "granted", g)
	if err != nil {
		t.Fatal(err)
	}
	c := sitetest.New(t, s.App)
	c.Bearer = tok
	return c
}

const tee = "/products/heavyweight-tee" // 29.00 EUR

func addTee(t *testing.T, c *sitetest.Client, qty int) {
	t.Helper()
	if w := c.Call(tee, "addToCart", map[string]any{"sku": "TEE-BLK-M", "qty": qty}); w.Code != 200 {
		t.Fatalf("addToCart: %d %s", w.Code, w.Body)
	}
}

func TestGrants_ScopesExpiryAndRevocation(t *testing.T) {
	s := shoptest.Start(t)
	c := grantedAgent(t, s, shop.Grant{Actions: []string{"addToCart", "placeOrder"}})
	addTee(t, c, 1)
	for _, call := range []struct{ page, action string }{{"/cart", "setQuantity"}, {"/cart", "removeFromCart"}, {"/account", "createToken"}} {
		w := c.Call(call.page, call.action, map[string]any{"sku": "TEE-BLK-M", "qty": 1})
		want := "scope " + call.action
		if call.action == "createToken" {
			want = "only a person" // people-only, whatever the token's scopes
		}
		if w.Code != 403 || w.ErrorCode() != "unauthorized" || !strings.Contains(w.Body.String(), want) {
			t.Errorf("%s beyond the grant: %d %s", call.action, w.Code, w.Body)
		}
	}
	if a := c.Graph("/cart"); a.Action("removeFromCart") == nil || a.Action("removeFromCart").Available {
		t.Errorf("the graph shows removeFromCart available to a token without it")
	}
	// Expired and revoked tokens do not work at all.
	expired := grantedAgent(t, s, shop.Grant{Expires: time.Now().Add(-time.Minute)})
	if w := expired.Call(tee, "addToCart", map[string]any{"sku": "TEE-BLK-M"}); w.Code != 401 {
		t.Errorf("an expired token: %d", w.Code)
	}
	demo, _ := s.Store.UserByEmail(context.Background(), shop.DemoEmail)
	toks, _ := s.Store.Tokens(context.Background(), demo)
	for _, tk := range toks {
		if tk.Label == "granted" {
			s.Store.RevokeToken(context.Background(), demo, tk.ID)
		}
	}
	if w := c.Call(tee, "addToCart", map[string]any{"sku": "TEE-BLK-M"}); w.Code != 401 {
		t.Errorf("a revoked token: %d", w.Code)
	}
}

func TestGrants_StandingApprovalOfOrders(t *testing.T) {
	s := shoptest.StartWith(t, shop.Options{}) // with approvals on the site
	c := grantedAgent(t, s, shop.Grant{Actions: []string{"addToCart", "placeOrder"}, OrderLimit: 5000, DayLimit: 8000})
	order := func() (int, string, string) {
		w := c.Call("/checkout", "placeOrder", map[string]any{})
		d := w.Delta()
		msg := ""
		if d.Error != nil {
			msg = d.Error.Message
		}
		return w.Code, d.ApprovalURL, msg
	}
	// Within the grant: ordered at once, no approval page.
	addTee(t, c, 1)
	if code, u, msg := order(); code != 200 || u != "" {
		t.Fatalf("the first order within the grant: %d %s %s", code, u, msg)
	}
	// Over the amount per order (58 EUR > 50): the person is asked.
	addTee(t, c, 2)
	if code, u, _ := order(); code != 428 || u == "" {
		t.Errorf("an order over the amount: %d %q", code, u)
	}
	// Back to one tee: 29 + 29 = 58 of 80 a day: ordered.
	if w := c.Call("/cart", "setQuantity", map[string]any{"sku": "TEE-BLK-M", "qty": 1}); w.Code != 403 {
		t.Fatalf("setQuantity is not granted: %d", w.Code)
	}
	s2 := grantedAgent(t, s, shop.Grant{}) // the person's other, unlimited token
	if w := s2.Call("/cart", "setQuantity", map[string]any{"sku": "TEE-BLK-M", "qty": 1}); w.Code != 200 {
		t.Fatalf("setQuantity: %d %s", w.Code, w.Body)
	}
	if code, u, msg := order(); code != 200 || u != "" {
		t.Fatalf("the second order within the day: %d %s %s", code, u, msg)
	}
	// A third: 87 > 80 a day: asked.
	addTee(t, c, 1)
	if code, u, _ := order(); code != 428 || u == "" {
		t.Errorf("an order over the day's limit: %d %q", code, u)
	}
	// To another address: asked, whatever the amount.
	w := c.Call("/checkout", "placeOrder", map[string]any{"address": map[string]any{"name": "X", "street": "1 Other Street",
		"postcode": "10115", "city": "Berlin", "country": "DE"}})
	if w.Code != 428 || w.Delta().ApprovalURL == "" {
		t.Errorf("an order to another address: %d %s", w.Code, w.Body)
	}
	// The token without a standing approval is asked every time.
	if w := s2.Call("/checkout", "placeOrder", map[string]any{}); w.Code != 428 {
		t.Errorf("a token without a grant: %d", w.Code)
	}
}

// A standing approval exceeded by one cent is refused.
func TestGrants_OneCentOver(t *testing.T) {
	s := shoptest.StartWith(t, shop.Options{})
	c := grantedAgent(t, s, shop.Grant{OrderLimit: 2899, DayLimit: 100000})
	addTee(t, c, 1)
	if w := c.Call("/checkout", "placeOrder", map[string]any{}); w.Code != 428 || w.Delta().ApprovalURL == "" {
		t.Errorf("29.00 on a grant of 28.99: %d %s", w.Code, w.Body)
	}
	d := grantedAgent(t, s, shop.Grant{OrderLimit: 2900, DayLimit: 2900})
	if w := d.Call("/checkout", "placeOrder", map[string]any{}); w.Code != 200 {
		t.Errorf("29.00 on a grant of 29.00: %d %s", w.Code, w.Body)
	}
}

// Concurrent orders of one token never total more than its day's limit,
// on either database: the check runs inside the order's transaction,
// under the cart's lock.
func TestGrants_TheDaysLimitHoldsUnderConcurrentOrders(t *testing.T) {
	backends(t, func(t *testing.T, s *shop.Store) {
		ctx := context.Background()
		id, err := s.CreateUser(ctx, "granter@example.com", "G", "a long password")
		if err != nil {
			t.Fatal(err)
		}
		if err := s.SaveAddress(ctx, id, testAddress); err != nil {
			t.Fatal(err)
		}
		if _, err := s.CreateGrantedToken(ctx, id, "g", shop.Grant{OrderLimit: 10000, DayLimit: 10000}); err != nil {
			t.Fatal(err)
		}
		toks, _ := s.Tokens(ctx, id)
		g := &shop.OrderGrant{TokenID: toks[0].ID, Grant: toks[0].Grant}
		var wg sync.WaitGroup
		var refusedN atomic.Int64
		errs := make(chan error, 48)
		for range 8 {
			wg.Go(func() {
				for range 3 {
					if _, err := s.AddToCart(ctx, shop.CartOwner{UserID: id}, "TEE-BLK-M", 1); err != nil && !strings.Contains(err.Error(), "at most") && !strings.Contains(err.Error(), "in stock") {
						errs <- err
					}
					_, err := s.PlaceOrderWithGrant(ctx, id, g, &shop.Delivery{Address: testAddress}, nil)
					if errors.Is(err, site.ErrOutsideGrant) {
						refusedN.Add(1)
					}
					if err != nil && !errors.Is(err, site.ErrOutsideGrant) && !strings.Contains(err.Error(), "empty") {
						errs <- err
					}
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Errorf("a concurrent order: %v", err)
		}
		refused := refusedN.Load()
		spent, err := s.SpentToday(ctx, g.TokenID)
		if err != nil {
			t.Fatal(err)
		}
		orders, _ := s.Orders(ctx, id)
		if spent > 10000 || refused == 0 {
			t.Fatalf("%d orders totalling %s on a grant of 100.00 a day, %d refused", len(orders), fmt.Sprintf("%.2f", float64(spent)/100), refused)
		}
		t.Logf("%d orders totalling %.2f, %d refused by the grant", len(orders), float64(spent)/100, refused)
	})
}

// Through /mcp, a scoped token gets the same refusal, and a standing
// approval places the order with no elicitation.
func TestGrants_ThroughMCP(t *testing.T) {
	s := shoptest.StartWith(t, shop.Options{})
	demo, _ := s.Store.UserByEmail(context.Background(), shop.DemoEmail)
	tok, err := s.Store.CreateGrantedToken(context.Background(), demo, "mcp", shop.Grant{Actions: []string{"addToCart", "placeOrder"},
		OrderLimit: 5000, DayLimit: 5000})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	elicited := 0
	client := sdk.NewClient(&sdk.Implementation{Name: "test host", Version: "0"}, &sdk.ClientOptions{
		ElicitationHandler: func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			elicited++
			return &sdk.ElicitResult{Action: "decline"}, nil
		}})
	cs, err := client.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: s.URL + "/mcp",
		HTTPClient: &http.Client{Transport: bearerTransport{tok}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	call := func(name string, args map[string]any) (string, string) {
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		text := res.Content[0].(*sdk.TextContent).Text
		if !res.IsError {
			return "ok", text
		}
		var d protocol.Delta
		b, _ := json.Marshal(res.StructuredContent)
		json.Unmarshal(b, &d)
		return string(d.Error.Code), text
	}
	if code, text := call("removeFromCart", map[string]any{"sku": "TEE-BLK-M"}); code != "unauthorized" || !strings.Contains(text, "scope removeFromCart") {
		t.Errorf("removeFromCart over MCP: %s %s", code, text)
	}
	if code, _ := call("addToCart", map[string]any{"page": tee, "sku": "TEE-BLK-M"}); code != "ok" {
		t.Fatalf("addToCart: %s", code)
	}
	if code, text := call("placeOrder", map[string]any{}); code != "ok" || elicited != 0 {
		t.Errorf("placeOrder within the grant over MCP: %s, %d elicitations: %s", code, elicited, text)
	}
}

// The account page names the agent that last used a token: the verified
// agent when the request was signed.
func TestGrants_TheAgentThatUsedAToken(t *testing.T) {
	_, key, _ := ed25519.GenerateKey(nil)
	verifier := &botauth.Verifier{Keys: []botauth.Key{{Name: "shopper-bot", Public: key.Public().(ed25519.PublicKey)}}}
	s := shoptest.StartWith(t, shop.Options{NoApprovals: true, Agents: verifier})
	c := grantedAgent(t, s, shop.Grant{})
	signer := &botauth.Signer{Key: key}
	r := httptest.NewRequest("POST", s.URL+tee, strings.NewReader(`{"action":"addToCart","input":{"sku":"TEE-BLK-M"}}`))
	r.Header.Set("Content-Type", protocol.MediaType)
	r.Header.Set("Authorization", "Bearer "+c.Bearer)
	if err := signer.Sign(r); err != nil {
		t.Fatal(err)
	}
	w := httptest.NewRecorder()
	s.App.ServeHTTP(w, r)
	if w.Code != 200 {
		t.Fatalf("signed call: %d %s", w.Code, w.Body)
	}
	demo, _ := s.Store.UserByEmail(context.Background(), shop.DemoEmail)
	toks, _ := s.Store.Tokens(context.Background(), demo)
	for _, tk := range toks {
		if tk.Label == "granted" && (tk.LastAgent != "shopper-bot" || tk.LastUsed.IsZero()) {
			t.Errorf("last used %v by %q", tk.LastUsed, tk.LastAgent)
		}
	}
}

// The person revokes a token with one click on the account page: the
// form's button is the confirmation.
func TestGrants_RevokeInOneClick(t *testing.T) {
	s := shoptest.Start(t)
	agent := grantedAgent(t, s, shop.Grant{})
	person := sitetest.New(t, s.App)
	if w := person.PostForm("/login", url.Values{"_action": {"signIn"}, "email": {shop.DemoEmail}, "password": {shop.DemoPassword}}); w.Code != http.StatusSeeOther {
		t.Fatalf("sign in: %d", w.Code)
	}
	page := person.Get("/account").Body.String()
	demo, _ := s.Store.UserByEmail(context.Background(), shop.DemoEmail)
	toks, _ := s.Store.Tokens(context.Background(), demo)
	var id int64
	for _, tk := range toks {
		if tk.Label == "granted" {
			id = tk.ID
		}
	}
	if !strings.Contains(page, `name="_confirm" value="true"`) || !strings.Contains(page, "everything you can do") {
		t.Fatalf("the account page's token list:\n%s", page)
	}
	w := person.PostForm("/account", url.Values{"_action": {"revokeToken"}, "_confirm": {"true"}, "id": {strconv.FormatInt(id, 10)}})
	if w.Code != http.StatusSeeOther {
		t.Fatalf("one click: %d %s", w.Code, w.Body)
	}
	if w := agent.Call(tee, "addToCart", map[string]any{"sku": "TEE-BLK-M"}); w.Code != 401 {
		t.Errorf("the revoked token still works: %d", w.Code)
	}
}
