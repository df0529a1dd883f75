package shop_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/affordances-go/affordances/examples/shop/shop"
	"github.com/affordances-go/affordances/internal/servers"
)

// One person's concurrent cart writes lose nothing, on both databases:
// parallel adds all count, an add racing an order is either in the order
// or left in the cart (never lost, never back after being ordered), and
// the first add of a new account from many requests at once creates one
// cart without an error.
func TestCart_ConcurrentWritesOfOnePerson(t *testing.T) {
	backends(t, func(t *testing.T, s *shop.Store) {
		ctx := context.Background()
		const rounds = 30
		for round := range rounds {
			id, err := s.CreateUser(ctx, fmt.Sprintf("p%d@example.com", round), "P", "a long password")
			if err != nil {
				t.Fatal(err)
			}
			owner := shop.CartOwner{UserID: id}
			// The first adds of a new account, at once: one cart, every
			// unit counted.
			var wg sync.WaitGroup
			errs := make(chan error, 6)
			for range 6 {
				wg.Go(func() {
					if _, err := s.AddToCart(ctx, owner, "TEE-BLK-M", 1); err != nil {
						errs <- err
					}
				})
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Fatalf("round %d: a concurrent add failed: %v", round, err)
			}
			c, err := s.Cart(ctx, owner)
			if err != nil {
				t.Fatal(err)
			}
			if c.Count != 6 {
				t.Fatalf("round %d: 6 concurrent adds of 1 left %d in the cart", round, c.Count)
			}
			// Adds racing the order: every unit is either ordered or in
			// the cart afterwards.
			if err := s.SaveAddress(ctx, id, testAddress); err != nil {
				t.Fatal(err)
			}
			var orderID int64
			added := make(chan bool, 4)
			for range 4 {
				wg.Go(func() {
					_, err := s.AddToCart(ctx, owner, "HOOD-GRE-S", 1)
					added <- err == nil
				})
			}
			wg.Go(func() {
				orderID, _ = s.PlaceOrder(ctx, id, nil, nil)
			})
			wg.Wait()
			close(added)
			adds := 0
			for ok := range added {
				if ok {
					adds++
				}
			}
			ordered := 0
			if orderID != 0 {
				o, err := s.Order(ctx, id, orderID)
				if err != nil {
					t.Fatal(err)
				}
				for _, it := range o.Items {
					ordered += it.Qty
				}
				s.CancelOrder(ctx, id, orderID)
			}
			c, _ = s.Cart(ctx, owner)
			if ordered+c.Count != 6+adds {
				t.Fatalf("round %d: 6 + %d added, %d ordered, %d left in the cart", round, adds, ordered, c.Count)
			}
			if orderID != 0 && ordered < 6 {
				t.Fatalf("round %d: the order holds %d of the 6 units it was placed with", round, ordered)
			}
		}
	})
}

// Three instances started at once on an empty database all start, and
// seed it once.
func TestOpen_ConcurrentFirstStarts(t *testing.T) {
	url := servers.StartPostgres(t).URL
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, 3)
	for range 3 {
		wg.Go(func() {
			db, err := shop.Open(ctx, url)
			if err != nil {
				errs <- err
				return
			}
			defer db.Close()
			s := shop.NewStore(db)
			s.PasswordIterations = 1000
			if err := s.Seed(ctx); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("a first start failed: %v", err)
	}
	db, err := shop.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, n, err := shop.NewStore(db).Catalog(ctx, "", 0, 100); err != nil || n != 14 {
		t.Fatalf("catalog after concurrent starts: %d products, %v", n, err)
	}
}

// Under load an instance keeps its PostgreSQL connections instead of
// closing them and opening new sessions for the next requests.
func TestOpen_PoolKeepsItsConnections(t *testing.T) {
	url := servers.StartPostgres(t).URL
	ctx := context.Background()
	db, err := shop.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for range 5 {
		var wg sync.WaitGroup
		for range 16 {
			wg.Go(func() { db.ExecContext(ctx, `SELECT pg_sleep(0.02)`) })
		}
		wg.Wait()
	}
	if st := db.Stats(); st.MaxIdleClosed > 0 {
		t.Fatalf("%d connections closed for want of idle slots (pool %d open)", st.MaxIdleClosed, st.MaxOpenConnections)
	}
}
