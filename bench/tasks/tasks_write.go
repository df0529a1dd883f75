package tasks

import (
	"context"
	"fmt"
)

// writes change the person's data and need their sign-in (the token
// they gave the agent, or their password for what a token may not do).
var writes = []Task{
	{ID: "buy-tee", Kind: Write,
		Statement: "Buy one Heavyweight Tee in Black, size M, delivered to my saved address.",
		Check:     orderOf(map[string]int{"TEE-BLK-M": 1}),
		Script: func(ctx context.Context, s *Scout) (string, error) {
			if err := add(ctx, s, "Heavyweight Tee", "Black", "M", 1); err != nil {
				return "", err
			}
			return ordered(placeOrder(ctx, s, nil))
		}},
	{ID: "buy-two-socks", Kind: Write,
		Statement: "Buy two packs of Crew Socks in White, size 41-46.",
		Check:     orderOf(map[string]int{"SOCK-WHI-4146": 2}),
		Script: func(ctx context.Context, s *Scout) (string, error) {
			if err := add(ctx, s, "Crew Socks", "White", "41-46", 2); err != nil {
				return "", err
			}
			return ordered(placeOrder(ctx, s, nil))
		}},
	{ID: "buy-two-products", Kind: Write,
		Statement: "In one order, buy a Canvas Tote in Natural and a Wool Beanie in Rust.",
		Check:     orderOf(map[string]int{"TOTE-NAT-ONESIZE": 1, "BEAN-RUS-ONESIZE": 1}),
		Script: func(ctx context.Context, s *Scout) (string, error) {
			if err := add(ctx, s, "Canvas Tote", "Natural", "One size", 1); err != nil {
				return "", err
			}
			if err := add(ctx, s, "Wool Beanie", "Rust", "One size", 1); err != nil {
				return "", err
			}
			return ordered(placeOrder(ctx, s, nil))
		}},
	{ID: "add-hoodie", Kind: Write,
		Statement: "Put an Everyday Hoodie in Navy, size L, in my cart. Do not order it.",
		Check:     cartIs(map[string]int{"HOOD-NAV-L": 1}, 0),
		Script: func(ctx context.Context, s *Scout) (string, error) {
			return "Added.", add(ctx, s, "Everyday Hoodie", "Navy", "L", 1)
		}},
	{ID: "set-quantity", Kind: Write,
		Statement: "I want three of the Linen Shirt that is in my cart, not one.",
		Setup:     inCart(map[string]int{"SHIR-SAN-M": 1}),
		Check:     cartIs(map[string]int{"SHIR-SAN-M": 3}, 0),
		Script: func(ctx context.Context, s *Scout) (string, error) {
			page, c, err := readCart(ctx, s)
			if err != nil {
				return "", err
			}
			sku, err := cartSKU(c, "Linen Shirt")
			if err != nil {
				return "", err
			}
			_, err = s.Call(ctx, page, "setQuantity", map[string]any{"sku": sku, "qty": 3})
			return "Done.", err
		}},
	{ID: "remove-line", Kind: Write,
		Statement: "Take the Wool Beanie out of my cart and leave the rest.",
		Setup:     inCart(map[string]int{"TOTE-NAT-ONESIZE": 1, "BEAN-CHA-ONESIZE": 1}),
		Check:     cartIs(map[string]int{"TOTE-NAT-ONESIZE": 1}, 0),
		Script: func(ctx context.Context, s *Scout) (string, error) {
			page, c, err := readCart(ctx, s)
			if err != nil {
				return "", err
			}
			sku, err := cartSKU(c, "Wool Beanie")
			if err != nil {
				return "", err
			}
			_, err = s.Call(ctx, page, "removeFromCart", map[string]any{"sku": sku})
			return "Done.", err
		}},
	{ID: "empty-cart", Kind: Write,
		Statement: "Empty my cart.",
		Setup:     inCart(map[string]int{"MUG-WHI-350ML": 2, "CAP-NAV-ONESIZE": 1, "NOTE-KRA-A5": 3}),
		Check:     cartIs(map[string]int{}, 0),
		Script: func(ctx context.Context, s *Scout) (string, error) {
			page, c, err := readCart(ctx, s)
			if err != nil {
				return "", err
			}
			for _, l := range c.Lines {
				if _, err := s.Call(ctx, page, "removeFromCart", map[string]any{"sku": l.SKU}); err != nil {
					return "", err
				}
			}
			return "Done.", nil
		}},
	{ID: "one-more-mug", Kind: Write,
		Statement: "Add one more Enamel Mug to the mugs already in my cart.",
		Setup:     inCart(map[string]int{"MUG-WHI-350ML": 2}),
		Check:     cartIs(map[string]int{"MUG-WHI-350ML": 3}, 0),
		Script: func(ctx context.Context, s *Scout) (string, error) {
			_, c, err := readCart(ctx, s)
			if err != nil {
				return "", err
			}
			for _, l := range c.Lines {
				if l.Product == "Enamel Mug" {
					return "Done.", add(ctx, s, "Enamel Mug", l.Colour, l.Size, 1)
				}
			}
			return "", fmt.Errorf("no mug in the cart")
		}},
	{ID: "swap-colour", Kind: Write,
		Statement: "Swap the black Heavyweight Tee in my cart for the same size in White.",
		Setup:     inCart(map[string]int{"TEE-BLK-L": 1}),
		Check:     cartIs(map[string]int{"TEE-WHI-L": 1}, 0),
		Script: func(ctx context.Context, s *Scout) (string, error) {
			page, c, err := readCart(ctx, s)
			if err != nil {
				return "", err
			}
			for _, l := range c.Lines {
				if l.Product == "Heavyweight Tee" && l.Colour == "Black" {
					if err := add(ctx, s, "Heavyweight Tee", "White", l.Size, l.Qty); err != nil {
						return "", err
					}
					_, err := s.Call(ctx, page, "removeFromCart", map[string]any{"sku": l.SKU})
					return "Done.", err
				}
			}
			return "", fmt.Errorf("no black tee in the cart")
		}},
	{ID: "reorder-last", Kind: Write,
		Statement: "Order again exactly what my last order had.",
		Setup:     placed(map[string]int{"NOTE-KRA-A5": 2, "MUG-WHI-350ML": 1}, false),
		Check: func(ctx context.Context, w *World, _ string, _ *Log) error {
			if n, _ := w.orderCount(ctx); n != 2 {
				return fmt.Errorf("%d orders, want 2", n)
			}
			return orderOf(map[string]int{"NOTE-KRA-A5": 2, "MUG-WHI-350ML": 1})(ctx, w, "", nil)
		},
		Script: func(ctx context.Context, s *Scout) (string, error) {
			_, _, o, err := lastOrder(ctx, s)
			if err != nil {
				return "", err
			}
			for _, it := range o.Items {
				// The order's items name their product; its page gives the SKU's colour and size.
				page, _, p, err := findProduct(ctx, s, it.Product)
				if err != nil {
					return "", err
				}
				found := false
				for _, v := range p.Variants {
					if v.SKU == it.SKU {
						found = true
					}
				}
				if !found {
					return "", fmt.Errorf("%s no longer sells %s", p.Name, it.SKU)
				}
				in := map[string]any{"sku": it.SKU}
				if it.Qty != 1 {
					in["qty"] = it.Qty
				}
				if _, err := s.Call(ctx, page, "addToCart", in); err != nil {
					return "", err
				}
			}
			return ordered(placeOrder(ctx, s, nil))
		}},
	{ID: "create-token", Kind: Write,
		Statement: "Create an API token labelled calendar-agent for my account (email " + personEmail + ", password " + personPassword + ").",
		Check: func(ctx context.Context, w *World, _ string, _ *Log) error {
			ts, err := w.Store.Tokens(ctx, w.UserID)
			if err != nil {
				return err
			}
			for _, t := range ts {
				if t.Label == "calendar-agent" {
					return nil
				}
			}
			return fmt.Errorf("no token labelled calendar-agent")
		},
		Script: func(ctx context.Context, s *Scout) (string, error) {
			if err := s.A.SignIn(ctx, personEmail, personPassword); err != nil {
				return "", err
			}
			page, err := s.PageOf(ctx, "createToken")
			if err != nil {
				page = "/account" // people-only: listed nowhere an agent reads; tokens live on the account page
			}
			_, err = s.Call(ctx, page, "createToken", map[string]any{"label": "calendar-agent"})
			return "Created.", err
		}},
}
