package shop_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/affordances-go/affordances/examples/shop/shop"
	"github.com/affordances-go/affordances/examples/shop/shoptest"
	"github.com/affordances-go/affordances/protocol"
)

// addToCart runs in one transaction with its guard and its delta
// (Store.Transact): a keyed call's answer is on its key's row, done, as
// soon as the call is answered, with no writer to wait for; and repeats
// of one key sent at once add the line once and all get the first
// answer. On both databases.
func TestAddToCart_KeyedAnswerCommitsWithTheCart(t *testing.T) {
	onEachDatabase(t, func(t *testing.T, dsn string) {
		s, db, agent := keyedShop(t, dsn)
		add := func(key string) (int, string) {
			res, body := agent.do("POST", "/products/heavyweight-tee", strings.NewReader(`{"action":"addToCart","input":{"sku":"TEE-BLK-M"}}`),
				"Content-Type", protocol.MediaType, "Idempotency-Key", key)
			return res.StatusCode, body
		}
		code, body := add("tx-1")
		if code != 200 {
			t.Fatalf("keyed addToCart: %d %s", code, body)
		}
		q := `SELECT state, delta FROM idempotency_keys WHERE key = ?`
		if db.Postgres() {
			q = strings.Replace(q, "?", "$1", 1)
		}
		var state, delta string
		if err := db.QueryRowContext(context.Background(), q, "tx-1").Scan(&state, &delta); err != nil {
			t.Fatalf("reading the key's row: %v", err)
		}
		if state != "done" || delta != body {
			t.Fatalf("right after the answer the key is %q with delta %q; want done with the answer %q", state, delta, body)
		}

		demo, _ := s.Store.UserByEmail(context.Background(), shop.DemoEmail)
		qty := func() int {
			c, err := s.Store.Cart(context.Background(), shop.CartOwner{UserID: demo})
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for _, l := range c.Lines {
				if l.SKU == "TEE-BLK-M" {
					n += l.Qty
				}
			}
			return n
		}
		for round := range 3 {
			before := qty()
			var wg sync.WaitGroup
			codes, bodies := make([]int, 8), make([]string, 8)
			for i := range codes {
				wg.Go(func() { codes[i], bodies[i] = add(fmt.Sprintf("tx-at-once-%d", round)) })
			}
			wg.Wait()
			if got := qty() - before; got != 1 {
				t.Fatalf("round %d: eight calls at once with one key added %d (answers %v)", round, got, codes)
			}
			for i := range codes {
				if codes[i] != 200 || bodies[i] != bodies[0] {
					t.Fatalf("round %d: answers %v; call %d answered %s, the first %s", round, codes, i, bodies[i], bodies[0])
				}
			}
		}
	})
}

// A caller that gives up stops its call's transaction: before it began,
// nothing runs; in the middle, the next query fails and every write of the
// call is rolled back. On both databases.
func TestTransact_TheCallerGivingUp(t *testing.T) {
	onEachDatabase(t, func(t *testing.T, dsn string) {
		s := shoptest.StartOn(t, dsn, shop.Options{NoApprovals: true})
		bg := context.Background()
		ctx, cancel := context.WithCancel(bg)
		cancel()
		ran := false
		err := s.Store.Transact(ctx, func(context.Context) error { ran = true; return nil })
		if !errors.Is(err, context.Canceled) || ran {
			t.Fatalf("a caller gone before: %v, ran %v; want context.Canceled, nothing run", err, ran)
		}

		demo, _ := s.Store.UserByEmail(bg, shop.DemoEmail)
		owner := shop.CartOwner{UserID: demo}
		ctx, cancel = context.WithCancel(bg)
		defer cancel()
		err = s.Store.Transact(ctx, func(ctx context.Context) error {
			if _, err := s.Store.AddToCart(ctx, owner, "TEE-BLK-M", 1); err != nil {
				return err
			}
			cancel() // the caller hangs up between the action and the delta
			_, err := s.Store.Cart(ctx, owner)
			return err
		})
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("a caller gone in the middle: %v, want context.Canceled", err)
		}
		if c, err := s.Store.Cart(bg, owner); err != nil || c.Count != 0 {
			t.Fatalf("after the rollback the cart holds %d (%v), want 0", c.Count, err)
		}
		// The store still works: the next call's transaction commits.
		if err := s.Store.Transact(bg, func(ctx context.Context) error {
			_, err := s.Store.AddToCart(ctx, owner, "TEE-BLK-M", 1)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		if c, _ := s.Store.Cart(bg, owner); c.Count != 1 {
			t.Fatalf("a committed transaction left %d in the cart, want 1", c.Count)
		}
	})
}
