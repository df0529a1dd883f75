package tasks

import (
	"context"
	"fmt"
	"maps"
	"strings"

	"github.com/affordances-go/affordances/examples/shop/shop"
)

// inCart is a setup: these lines in the person's cart.
func inCart(lines map[string]int) func(context.Context, *World) error {
	return func(ctx context.Context, w *World) error {
		for sku, n := range lines {
			if _, err := w.Store.AddToCart(ctx, w.owner(), sku, n); err != nil {
				return fmt.Errorf("setup: %s: %w", sku, err)
			}
		}
		return nil
	}
}

// placed is a setup: an order of these lines to the saved address,
// shipped already when shipped is set.
func placed(lines map[string]int, shipped bool) func(context.Context, *World) error {
	return func(ctx context.Context, w *World) error {
		if err := inCart(lines)(ctx, w); err != nil {
			return err
		}
		id, err := w.Store.PlaceOrder(ctx, w.UserID, nil, nil)
		if err != nil {
			return fmt.Errorf("setup: ordering: %w", err)
		}
		if shipped {
			return w.Store.MarkShipped(ctx, id)
		}
		return nil
	}
}

// cartIs checks that the cart holds exactly these lines, and that the
// person has this many orders.
func cartIs(want map[string]int, orders int) func(context.Context, *World, string, *Log) error {
	return func(ctx context.Context, w *World, _ string, _ *Log) error {
		c, err := w.Store.Cart(ctx, w.owner())
		if err != nil {
			return err
		}
		got := map[string]int{}
		for _, l := range c.Lines {
			got[l.SKU] = l.Qty
		}
		if !maps.Equal(got, want) {
			return fmt.Errorf("cart %v, want %v", got, want)
		}
		if n, err := w.orderCount(ctx); err != nil || n != orders {
			return fmt.Errorf("%d orders, want %d (%v)", n, orders, err)
		}
		return nil
	}
}

// orderOf checks that the newest order is exactly these lines, placed,
// and that the cart is empty.
func orderOf(want map[string]int) func(context.Context, *World, string, *Log) error {
	return func(ctx context.Context, w *World, _ string, _ *Log) error {
		o, err := w.lastOrder(ctx)
		if err != nil {
			return err
		}
		got := map[string]int{}
		for _, it := range o.Items {
			got[it.SKU] += it.Qty
		}
		if !maps.Equal(got, want) || o.Status != "placed" {
			return fmt.Errorf("last order %v (%s), want %v placed", got, o.Status, want)
		}
		c, err := w.Store.Cart(ctx, w.owner())
		if err != nil || len(c.Lines) != 0 {
			return fmt.Errorf("the cart still has %d lines (%v)", len(c.Lines), err)
		}
		return nil
	}
}

// lastOrderStatus checks the newest order's status.
func lastOrderStatus(status string) func(context.Context, *World, string, *Log) error {
	return func(ctx context.Context, w *World, _ string, _ *Log) error {
		o, err := w.lastOrder(ctx)
		if err != nil {
			return err
		}
		if o.Status != status {
			return fmt.Errorf("last order is %s, want %s", o.Status, status)
		}
		return nil
	}
}

// notTried checks a task whose action cannot run: the answer gives the
// reason (it contains because), the action was never called, and the
// store is as it was (no order changed, the cart as set up).
func notTried(action, because string) func(context.Context, *World, string, *Log) error {
	return func(ctx context.Context, w *World, answer string, log *Log) error {
		if n := log.Calls[action]; n > 0 {
			return fmt.Errorf("%s was called %d times", action, n)
		}
		if !strings.Contains(strings.ToLower(answer), because) {
			return fmt.Errorf("the answer %q does not say %q", answer, because)
		}
		return nil
	}
}

// answers checks a question's answer: it must contain what the database
// says, each of its comma-separated parts, without regard to case.
func answers(truth func(context.Context, *World) (string, error)) func(context.Context, *World, string, *Log) error {
	return func(ctx context.Context, w *World, answer string, log *Log) error {
		want, err := truth(ctx, w)
		if err != nil {
			return err
		}
		if want == "" {
			return fmt.Errorf("the database has no answer")
		}
		for _, part := range strings.Split(want, ", ") {
			if !strings.Contains(strings.ToLower(answer), strings.ToLower(part)) {
				return fmt.Errorf("answer %q, want %q", answer, want)
			}
		}
		if len(log.Calls) > 0 {
			return fmt.Errorf("a question changed nothing, but the agent called %v", log.Calls)
		}
		return nil
	}
}

// amount writes cents as the pages do: 129.00.
func amount(cents int64) string { return fmt.Sprintf("%d.%02d", cents/100, cents%100) }

// eachProduct runs f on every product of the catalog.
func eachProduct(ctx context.Context, w *World, f func(*shop.Product)) error {
	ps, _, err := w.Store.Catalog(ctx, "", 0, 1000)
	if err != nil {
		return err
	}
	for _, s := range ps {
		p, err := w.Store.Product(ctx, s.Slug)
		if err != nil {
			return err
		}
		f(p)
	}
	return nil
}

// productFact is a fact of one product, as the database has it. A check
// computes its facts from the store's own types, apart from the scripts'
// reading of the pages, even where the two look alike: a check that
// shared a script's code could not catch that code's mistakes.
func productFact(slug string, f func(*shop.Product) string) func(context.Context, *World) (string, error) {
	return func(ctx context.Context, w *World) (string, error) {
		p, err := w.Store.Product(ctx, slug)
		if err != nil {
			return "", err
		}
		return f(p), nil
	}
}
