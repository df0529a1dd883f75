package e2e_test

import (
	"context"
	"strings"
	"testing"

	"github.com/affordances-go/affordances/client"
	"github.com/affordances-go/affordances/examples/shop/shoptest"
)

var ctx = context.Background()

func TestClient_BuysATeeWithABearerToken(t *testing.T) {
	s := shoptest.Start(t)
	before := s.Stock(t, "TEE-BLK-M")
	var asked []string
	c := client.New(client.Options{Token: s.Token, FollowRedirects: true,
		Approver: func(_ context.Context, a client.Approval) (bool, error) {
			asked = append(asked, a.Summary)
			return true, nil
		}})
	idx, err := c.Index(ctx, s.URL)
	if err != nil || len(idx.Routes) < 8 {
		t.Fatalf("index: %v %+v", err, idx)
	}
	res, err := c.Call(ctx, s.URL+"/products/heavyweight-tee", "addToCart", map[string]any{"sku": "TEE-BLK-M"})
	if err != nil || !res.Delta.OK || res.Confirmed {
		t.Fatalf("addToCart: %v %+v", err, res)
	}
	var line struct {
		SKU string `json:"sku"`
		Qty int    `json:"qty"`
	}
	if err := res.Output(&line); err != nil || line.SKU != "TEE-BLK-M" || line.Qty != 1 {
		t.Errorf("output %+v %v", line, err)
	}
	res, err = c.Call(ctx, s.URL+"/checkout", "placeOrder", nil)
	if err != nil || !res.Confirmed || len(asked) != 1 || !strings.Contains(asked[0], "Heavyweight Tee (Black, M)") {
		t.Fatalf("placeOrder: %v %+v asked %q", err, res, asked)
	}
	if res.Next == nil || res.Next.Route != "/orders/[id]" {
		t.Fatalf("redirect not followed: %+v", res.Next)
	}
	if got := s.Stock(t, "TEE-BLK-M"); got != before-1 {
		t.Errorf("stock %d, want %d", got, before-1)
	}
}

func TestClient_RidesOnCookiesAfterSignIn(t *testing.T) {
	s := shoptest.Start(t)
	c := client.New(client.Options{Approver: func(context.Context, client.Approval) (bool, error) { return true, nil }})
	if _, err := c.Call(ctx, s.URL+"/login", "signIn", map[string]any{"email": "demo@example.com", "password": "demo"}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Call(ctx, s.URL+"/products/heavyweight-tee", "addToCart", map[string]any{"sku": "TEE-OLI-L", "qty": 2}); err != nil {
		t.Fatal(err)
	}
	res, err := c.Call(ctx, s.URL+"/checkout", "placeOrder", nil)
	if err != nil || !strings.HasPrefix(res.Delta.Redirect, "/orders/") {
		t.Fatalf("placeOrder: %v %+v", err, res)
	}
	if s.Orders(t) != 1 {
		t.Errorf("orders %d", s.Orders(t))
	}
}
