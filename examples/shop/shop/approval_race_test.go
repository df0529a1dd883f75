package shop_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/affordances-go/affordances/examples/shop/shop"
	"github.com/affordances-go/affordances/examples/shop/shoptest"
	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site/ratelimit"
)

// raceTries is how many approved orders race concurrent adds per
// database. Before placeOrder checked the approved cart in its
// transaction, an order of more than the person approved came within 1
// to 10 tries.
const raceTries = 60

// What runs is what the person approved: an agent that adds to the cart
// while its approved placeOrder runs never gets the extra items into the
// order. Each try places an order of exactly the approved cart, or is
// refused with confirm_required and a new approval; never an order of
// anything else. On SQLite and PostgreSQL.
func TestPlaceOrder_RunsOnlyTheApprovedCart(t *testing.T) {
	onEachDatabase(t, func(t *testing.T, dsn string) {
		s := shoptest.StartOn(t, dsn, shop.Options{DefaultLimit: ratelimit.PerMinute(6000, 1000)})
		ctx := context.Background()
		demo, _ := s.Store.UserByEmail(ctx, shop.DemoEmail)
		sess, _ := s.Store.CreateSession(ctx, demo)
		owner := shop.CartOwner{UserID: demo}
		const sku = "HOOD-GRE-S"
		var placed, refused, wrong int
		for try := range raceTries {
			s.Store.SetQuantity(ctx, owner, "TEE-BLK-M", 0) // absent after an order
			if err := s.Store.SetQuantity(ctx, owner, sku, 1); err != nil {
				if _, err := s.Store.AddToCart(ctx, owner, sku, 1); err != nil {
					t.Fatal(err)
				}
			}
			approved, _ := s.Store.Cart(ctx, owner)
			d := approvedCall(t, s, sess, "")
			if d.ApprovalURL == "" {
				t.Fatalf("try %d: no approval asked: %+v", try, d)
			}
			approve(t, s, sess, d.ApprovalURL)
			var wg sync.WaitGroup
			for range 8 {
				wg.Go(func() {
					time.Sleep(time.Duration(rand.IntN(5000)) * time.Microsecond)
					s.Store.AddToCart(ctx, owner, "TEE-BLK-M", 1)
				})
			}
			d = approvedCall(t, s, sess, d.ApprovalURL)
			wg.Wait()
			switch {
			case d.OK:
				placed++
				var out struct{ OrderID int64 }
				b, _ := json.Marshal(d.Output)
				json.Unmarshal(b, &out)
				o, err := s.Store.Order(ctx, demo, out.OrderID)
				if err != nil {
					t.Fatal(err)
				}
				if o.Total != approved.Total || len(o.Items) != 1 || o.Items[0].SKU != sku || o.Items[0].Qty != 1 {
					wrong++
					t.Errorf("try %d: the person approved %s, the order holds %s: %+v", try, approved.Total, o.Total, o.Items)
				}
				s.Store.CancelOrder(ctx, demo, out.OrderID) // the stock goes back for the next try
			case d.Error != nil && d.Error.Code == protocol.CodeConfirmRequired && d.ApprovalURL != "":
				refused++
			default:
				t.Fatalf("try %d: %+v", try, d)
			}
		}
		t.Logf("%d tries: %d orders of exactly the approved cart, %d refused as changed, %d orders of something else",
			raceTries, placed, refused, wrong)
	})
}

// approvedCall calls placeOrder as the demo account's agent, with an
// approval when given one.
func approvedCall(t *testing.T, s *shoptest.Shop, sess, approval string) protocol.Delta {
	t.Helper()
	body := fmt.Sprintf(`{"action":"placeOrder","confirm":true,"approval":%q}`, approval)
	req, _ := http.NewRequest("POST", s.URL+"/checkout", strings.NewReader(body))
	req.Header.Set("Content-Type", protocol.MediaType)
	req.Header.Set("Authorization", "Bearer "+s.Token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var d protocol.Delta
	json.NewDecoder(res.Body).Decode(&d)
	return d
}

// approve approves on the approval page as the person, in their session.
func approve(t *testing.T, s *shoptest.Shop, sess, approvalURL string) {
	t.Helper()
	req, _ := http.NewRequest("POST", s.URL+approvalURL, strings.NewReader(url.Values{"_decision": {"approve"}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", s.URL)
	req.AddCookie(&http.Cookie{Name: "sid", Value: sess})
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 200 {
		t.Fatalf("approve: %d", res.StatusCode)
	}
}
