package e2e_test

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/affordances-go/affordances/client"
	"github.com/affordances-go/affordances/examples/shop/shop"
	"github.com/affordances-go/affordances/examples/shop/shoptest"
)

// approve has the demo person, signed in with a session in their browser,
// decide on an approval page.
func approve(t *testing.T, s *shoptest.Shop, approvalURL, decision string) {
	t.Helper()
	ctx := context.Background()
	demo, _ := s.Store.UserByEmail(ctx, shop.DemoEmail)
	sess, err := s.Store.CreateSession(ctx, demo)
	if err != nil {
		t.Error(err)
		return
	}
	req, _ := http.NewRequest("POST", approvalURL, strings.NewReader(url.Values{"_decision": {decision}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Cookie", "sid="+sess)
	req.Header.Set("Origin", s.URL)
	res, err := http.DefaultClient.Do(req)
	if err != nil || res.StatusCode != 200 {
		t.Errorf("the person's %s: %v %v", decision, res, err)
		return
	}
	res.Body.Close()
}

// The agent's order runs once the person approved it on the site, and not
// before.
func TestClient_WaitsForThePersonsApprovalOnTheSite(t *testing.T) {
	s := shoptest.StartWith(t, shop.Options{})
	for _, c := range []struct {
		decision string
		orders   int
	}{{"approve", 1}, {"decline", 0}} {
		t.Run(c.decision, func(t *testing.T) {
			before := s.Orders(t)
			var shown []client.SiteApproval
			cl := client.New(client.Options{Token: s.Token, MaxApprovalWait: 20 * time.Second,
				OnApprovalNeeded: func(ctx context.Context, a client.SiteApproval) error {
					shown = append(shown, a)
					if s.Orders(t) != before {
						t.Error("the order ran before the person decided")
					}
					go approve(t, s, a.URL, c.decision)
					return nil
				}})
			if _, err := cl.Call(ctx, s.URL+"/products/heavyweight-tee", "addToCart", map[string]any{"sku": "TEE-BLK-M"}); err != nil {
				t.Fatal(err)
			}
			res, err := cl.Call(ctx, s.URL+"/checkout", "placeOrder", nil)
			switch c.decision {
			case "approve":
				if err != nil || !res.Delta.OK || !strings.HasPrefix(res.Delta.Redirect, "/orders/") {
					t.Fatalf("approved: %v %+v", err, res)
				}
			case "decline":
				if !errors.Is(err, client.ErrNotApproved) {
					t.Fatalf("declined: %v", err)
				}
			}
			if len(shown) != 1 || !strings.HasPrefix(shown[0].URL, s.URL+"/approvals/") || !strings.Contains(shown[0].Summary, "Heavyweight Tee (Black, M)") {
				t.Errorf("shown %+v", shown)
			}
			if got := s.Orders(t) - before; got != c.orders {
				t.Errorf("%d orders, want %d", got, c.orders)
			}
		})
	}
}

// Without OnApprovalNeeded, the program gets the URL in the error, and
// completes the call itself once the person approved.
func TestClient_ApprovalByHand(t *testing.T) {
	s := shoptest.StartWith(t, shop.Options{})
	cl := client.New(client.Options{Token: s.Token, Approver: func(context.Context, client.Approval) (bool, error) {
		t.Error("the Approver was asked for an action the site approves")
		return true, nil
	}})
	cl.Call(ctx, s.URL+"/products/heavyweight-tee", "addToCart", map[string]any{"sku": "TEE-BLK-M"})
	_, err := cl.Call(ctx, s.URL+"/checkout", "placeOrder", nil)
	var ce *client.Error
	if !errors.As(err, &ce) || ce.ApprovalURL == "" || s.Orders(t) != 0 {
		t.Fatalf("%v", err)
	}
	approve(t, s, ce.ApprovalURL, "approve")
	if err := cl.AwaitApproval(ctx, ce.ApprovalURL); err != nil {
		t.Fatal(err)
	}
	if res, err := cl.CallApproved(ctx, s.URL+"/checkout", "placeOrder", nil, ce.ApprovalURL); err != nil || !res.Delta.OK || s.Orders(t) != 1 {
		t.Fatalf("%v %+v", err, res)
	}
}
