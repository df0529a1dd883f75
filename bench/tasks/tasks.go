package tasks

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/affordances-go/affordances/examples/shop/shop"
	"github.com/affordances-go/affordances/protocol"
)

// Kind sorts the tasks by what they ask of an agent.
type Kind string

const (
	// Write changes the person's data and needs their sign-in.
	Write Kind = "write"
	// Approval needs the person's approval on the site as well.
	Approval Kind = "approval"
	// Unavailable asks for something the store cannot do now: the right
	// answer reports why, without trying.
	Unavailable Kind = "unavailable"
	// Read asks a question answered from pages.
	Read Kind = "read"
)

// Task is one task of the set: what the person asks, the state the store
// starts in, and the check of the outcome in the database (and, for a
// question, of the answer against the database).
type Task struct {
	ID        string
	Kind      Kind
	Statement string
	// Setup prepares the store before the agent starts (nil: as seeded).
	Setup func(ctx context.Context, w *World) error
	// Check reads the outcome; answer is the agent's last words, and log
	// what it did. nil is success.
	Check func(ctx context.Context, w *World, answer string, log *Log) error
	// Script is how a good scripted agent does the task on any path, from
	// the statement's facts alone.
	Script func(ctx context.Context, s *Scout) (answer string, err error)
}

// Who the agent acts for, as every statement gives it.
const (
	personEmail    = shop.DemoEmail
	personPassword = shop.DemoPassword
)

// All is the task set, in a fixed order.
func All() []Task { return slices.Clone(all) }

var all = []Task{
	// Writes that need the person's sign-in (the token they gave).
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
				return "", err
			}
			_, err = s.Call(ctx, page, "createToken", map[string]any{"label": "calendar-agent"})
			return "Created.", err
		}},

	// Writes that need the person's approval on the site.
	{ID: "buy-jacket", Kind: Approval,
		Statement: "Buy a Chore Jacket in Khaki, size L.",
		Check: func(ctx context.Context, w *World, a string, l *Log) error {
			if w.Approvals != 1 {
				return fmt.Errorf("the person approved %d times, want 1 (the order is over the agent's standing limit)", w.Approvals)
			}
			return orderOf(map[string]int{"JACK-KHA-L": 1})(ctx, w, a, l)
		},
		Script: func(ctx context.Context, s *Scout) (string, error) {
			if err := add(ctx, s, "Chore Jacket", "Khaki", "L", 1); err != nil {
				return "", err
			}
			return ordered(placeOrder(ctx, s, nil))
		}},
	{ID: "cancel-last-order", Kind: Approval,
		Statement: "Cancel my last order.",
		Setup:     placed(map[string]int{"SCAR-OAT-ONESIZE": 1}, false),
		Check:     lastOrderStatus("cancelled"),
		Script: func(ctx context.Context, s *Scout) (string, error) {
			page, _, _, err := lastOrder(ctx, s)
			if err != nil {
				return "", err
			}
			_, err = s.Call(ctx, page, "cancelOrder", nil)
			return "Cancelled.", err
		}},
	{ID: "order-new-address", Kind: Approval,
		Statement: "Buy a Merino Scarf in Forest and have it delivered to Ada Lovelace, 1 Queen Street, EC4N 1SR London, GB; save that address for my next orders.",
		Check: func(ctx context.Context, w *World, a string, l *Log) error {
			if err := orderOf(map[string]int{"SCAR-FOR-ONESIZE": 1})(ctx, w, a, l); err != nil {
				return err
			}
			o, err := w.lastOrder(ctx)
			if err != nil {
				return err
			}
			if o.Address == nil || o.Address.City != "London" || o.Address.Postcode != "EC4N 1SR" {
				return fmt.Errorf("the order goes to %+v", o.Address)
			}
			saved, err := w.Store.SavedAddress(ctx, w.UserID)
			if err != nil || saved == nil || saved.Name != "Ada Lovelace" {
				return fmt.Errorf("saved address %+v, %v", saved, err)
			}
			return nil
		},
		Script: func(ctx context.Context, s *Scout) (string, error) {
			if err := add(ctx, s, "Merino Scarf", "Forest", "One size", 1); err != nil {
				return "", err
			}
			to := address{Name: "Ada Lovelace", Street: "1 Queen Street", Postcode: "EC4N 1SR", City: "London", Country: "GB"}
			return ordered(placeOrder(ctx, s, map[string]any{"address": to, "saveAddress": true}))
		}},
	{ID: "revoke-token", Kind: Approval,
		Statement: "Revoke my API token labelled old-agent (my email is " + personEmail + ", my password " + personPassword + ").",
		Setup: func(ctx context.Context, w *World) error {
			_, err := w.Store.CreateToken(ctx, w.UserID, "old-agent")
			return err
		},
		Check: func(ctx context.Context, w *World, _ string, _ *Log) error {
			ts, err := w.Store.Tokens(ctx, w.UserID)
			if err != nil {
				return err
			}
			for _, t := range ts {
				if t.Label == "old-agent" {
					return fmt.Errorf("old-agent still works")
				}
			}
			if len(ts) != 1 {
				return fmt.Errorf("%d tokens left, want the agent's own", len(ts))
			}
			return nil
		},
		Script: func(ctx context.Context, s *Scout) (string, error) {
			if err := s.A.SignIn(ctx, personEmail, personPassword); err != nil {
				return "", err
			}
			page, err := s.PageOf(ctx, "revokeToken")
			if err != nil {
				return "", err
			}
			g, err := s.Read(ctx, page)
			if err != nil {
				return "", err
			}
			var ts []struct {
				ID    int64  `json:"id"`
				Label string `json:"label"`
			}
			if err := Entity(g, "tokens", &ts); err != nil {
				return "", err
			}
			for _, t := range ts {
				if t.Label == "old-agent" {
					_, err := s.Call(ctx, page, "revokeToken", map[string]any{"id": t.ID})
					return "Revoked.", err
				}
			}
			return "", fmt.Errorf("no token labelled old-agent")
		}},

	// What cannot be done now: say why, without trying.
	{ID: "sold-out", Kind: Unavailable,
		Statement: "Buy a Heavyweight Tee in Black, size XL. If that is not possible, tell me why.",
		Check:     notTried("addToCart", "sold out"),
		Script: func(ctx context.Context, s *Scout) (string, error) {
			_, _, p, err := findProduct(ctx, s, "Heavyweight Tee")
			if err != nil {
				return "", err
			}
			_, stock, err := variant(p, "Black", "XL")
			if err != nil {
				return "", err
			}
			if stock == 0 {
				return "Not possible: the Black XL is sold out.", nil
			}
			return "", fmt.Errorf("in stock after all")
		}},
	{ID: "order-empty-cart", Kind: Unavailable,
		Statement: "Place an order for what is in my cart. If that is not possible, tell me why.",
		Check:     notTried("placeOrder", "empty"),
		Script: func(ctx context.Context, s *Scout) (string, error) {
			page, err := s.PageOf(ctx, "placeOrder")
			if err != nil {
				return "", err
			}
			g, err := s.Seen(ctx, page)
			if err != nil {
				return "", err
			}
			return unavailable(g, "placeOrder")
		}},
	{ID: "cancel-shipped", Kind: Unavailable,
		Statement: "Cancel my last order. If that is not possible, tell me why.",
		Setup:     placed(map[string]int{"BELT-BRO-95": 1}, true),
		Check:     notTried("cancelOrder", "shipped"),
		Script: func(ctx context.Context, s *Scout) (string, error) {
			_, g, _, err := lastOrder(ctx, s)
			if err != nil {
				return "", err
			}
			return unavailable(g, "cancelOrder")
		}},

	// Questions answered from pages, checked against the database.
	{ID: "cheapest-in-m", Kind: Read,
		Statement: "Which is the cheapest product I can buy in size M right now? Give its name.",
		Check: answers(func(ctx context.Context, w *World) (string, error) {
			best, price := "", int64(1<<62)
			err := eachProduct(ctx, w, func(p *shop.Product) {
				for _, v := range p.Variants {
					if v.Size == "M" && v.Stock > 0 && p.Price.Amount < price {
						best, price = p.Name, p.Price.Amount
					}
				}
			})
			return best, err
		}),
		Script: func(ctx context.Context, s *Scout) (string, error) {
			c, err := catalogPages(ctx, s, "", nil)
			if err != nil {
				return "", err
			}
			slices.SortStableFunc(c.Products, func(a, b struct {
				Slug    string `json:"slug"`
				Name    string `json:"name"`
				Price   money  `json:"price"`
				InStock bool   `json:"inStock"`
			}) int {
				return int(a.Price.Amount - b.Price.Amount)
			})
			for _, it := range c.Products {
				if !it.InStock {
					continue
				}
				_, _, p, err := findProduct(ctx, s, it.Name)
				if err != nil {
					return "", err
				}
				for _, v := range p.Variants {
					if v.Size == "M" && v.Stock > 0 {
						return p.Name, nil
					}
				}
			}
			return "", fmt.Errorf("nothing in M")
		}},
	{ID: "last-order-total", Kind: Read,
		Statement: "What was the total of my last order?",
		Setup:     placed(map[string]int{"TROU-OLI-32": 1, "SOCK-BLK-3640": 2}, false),
		Check: answers(func(ctx context.Context, w *World) (string, error) {
			o, err := w.lastOrder(ctx)
			if err != nil {
				return "", err
			}
			return amount(o.Total.Amount), nil
		}),
		Script: func(ctx context.Context, s *Scout) (string, error) {
			os, _, err := readOrders(ctx, s)
			if err != nil || len(os) == 0 {
				return "", fmt.Errorf("no orders: %v", err)
			}
			return os[0].Total.String(), nil
		}},
	{ID: "cart-count", Kind: Read,
		Statement: "How many items are in my cart?",
		Setup:     inCart(map[string]int{"MUG-WHI-350ML": 2, "CAP-STO-ONESIZE": 1}),
		Check: answers(func(ctx context.Context, w *World) (string, error) {
			c, err := w.Store.Cart(ctx, w.owner())
			return strconv.Itoa(c.Count), err
		}),
		Script: func(ctx context.Context, s *Scout) (string, error) {
			g, err := s.Seen(ctx, "/")
			if err != nil {
				return "", err
			}
			var c cart
			err = Entity(g, "cart", &c)
			return strconv.Itoa(c.Count), err
		}},
	{ID: "cart-total", Kind: Read,
		Statement: "What is the total of my cart?",
		Setup:     inCart(map[string]int{"SHIR-SKY-L": 1, "BELT-BLK-85": 1}),
		Check: answers(func(ctx context.Context, w *World) (string, error) {
			c, err := w.Store.Cart(ctx, w.owner())
			return amount(c.Total.Amount), err
		}),
		Script: func(ctx context.Context, s *Scout) (string, error) {
			g, err := s.Seen(ctx, "/")
			if err != nil {
				return "", err
			}
			var c cart
			err = Entity(g, "cart", &c)
			return c.Total.String(), err
		}},
	{ID: "price-of", Kind: Read,
		Statement: "How much does the Chore Jacket cost?",
		Check:     answers(productFact("chore-jacket", func(p *shop.Product) string { return amount(p.Price.Amount) })),
		Script: func(ctx context.Context, s *Scout) (string, error) {
			c, err := catalogPages(ctx, s, queryFor(s, "Chore Jacket"), func(c catalog) bool { return hasProduct(c, "Chore Jacket") })
			if err != nil {
				return "", err
			}
			for _, p := range c.Products {
				if p.Name == "Chore Jacket" {
					return p.Price.String(), nil
				}
			}
			return "", fmt.Errorf("no Chore Jacket")
		}},
	{ID: "colours-of", Kind: Read,
		Statement: "In which colours does the Rain Shell come?",
		Check: answers(productFact("rain-shell", func(p *shop.Product) string {
			var cs []string
			for _, v := range p.Variants {
				if !slices.Contains(cs, v.Colour) {
					cs = append(cs, v.Colour)
				}
			}
			return strings.Join(cs, ", ")
		})),
		Script: func(ctx context.Context, s *Scout) (string, error) {
			_, _, p, err := findProduct(ctx, s, "Rain Shell")
			if err != nil {
				return "", err
			}
			var cs []string
			for _, v := range p.Variants {
				if !slices.Contains(cs, v.Colour) {
					cs = append(cs, v.Colour)
				}
			}
			return strings.Join(cs, ", "), nil
		}},
	{ID: "stock-of", Kind: Read,
		Statement: "How many Heavyweight Tees in Black, size M, are in stock?",
		Check: answers(func(ctx context.Context, w *World) (string, error) {
			n, err := w.Store.Stock(ctx, "TEE-BLK-M")
			return strconv.Itoa(n), err
		}),
		Script: func(ctx context.Context, s *Scout) (string, error) {
			_, _, p, err := findProduct(ctx, s, "Heavyweight Tee")
			if err != nil {
				return "", err
			}
			_, n, err := variant(p, "Black", "M")
			return strconv.Itoa(n), err
		}},
	{ID: "sizes-in-stock", Kind: Read,
		Statement: "Which sizes of the Cargo Trousers in Olive are in stock?",
		Check: answers(productFact("cargo-trousers", func(p *shop.Product) string {
			var ss []string
			for _, v := range p.Variants {
				if v.Colour == "Olive" && v.Stock > 0 {
					ss = append(ss, v.Size)
				}
			}
			return strings.Join(ss, ", ")
		})),
		Script: func(ctx context.Context, s *Scout) (string, error) {
			_, _, p, err := findProduct(ctx, s, "Cargo Trousers")
			if err != nil {
				return "", err
			}
			var ss []string
			for _, v := range p.Variants {
				if v.Colour == "Olive" && v.Stock > 0 {
					ss = append(ss, v.Size)
				}
			}
			return strings.Join(ss, ", "), nil
		}},
	{ID: "order-count", Kind: Read,
		Statement: "How many orders have I placed?",
		Setup: func(ctx context.Context, w *World) error {
			if err := placed(map[string]int{"MUG-WHI-350ML": 1}, false)(ctx, w); err != nil {
				return err
			}
			return placed(map[string]int{"CAP-NAV-ONESIZE": 1}, true)(ctx, w)
		},
		Check: answers(func(ctx context.Context, w *World) (string, error) {
			n, err := w.orderCount(ctx)
			return strconv.Itoa(n), err
		}),
		Script: func(ctx context.Context, s *Scout) (string, error) {
			os, _, err := readOrders(ctx, s)
			return strconv.Itoa(len(os)), err
		}},
	{ID: "order-status", Kind: Read,
		Statement: "Has my last order shipped yet? Tell me its status.",
		Setup:     placed(map[string]int{"JACK-IND-M": 1}, true),
		Check: answers(func(ctx context.Context, w *World) (string, error) {
			o, err := w.lastOrder(ctx)
			if err != nil {
				return "", err
			}
			return o.Status, nil
		}),
		Script: func(ctx context.Context, s *Scout) (string, error) {
			os, _, err := readOrders(ctx, s)
			if err != nil || len(os) == 0 {
				return "", fmt.Errorf("no orders: %v", err)
			}
			return os[0].Status, nil
		}},
	{ID: "last-order-items", Kind: Read,
		Statement: "How many items were in my last order?",
		Setup:     placed(map[string]int{"NOTE-KRA-A5": 3, "TOTE-BLK-ONESIZE": 1}, false),
		Check: answers(func(ctx context.Context, w *World) (string, error) {
			o, err := w.lastOrder(ctx)
			if err != nil {
				return "", err
			}
			n := 0
			for _, it := range o.Items {
				n += it.Qty
			}
			return strconv.Itoa(n), nil
		}),
		Script: func(ctx context.Context, s *Scout) (string, error) {
			_, _, o, err := lastOrder(ctx, s)
			n := 0
			for _, it := range o.Items {
				n += it.Qty
			}
			return strconv.Itoa(n), err
		}},
	{ID: "saved-city", Kind: Read,
		Statement: "To which city are my orders delivered when I do not say otherwise?",
		Check: answers(func(ctx context.Context, w *World) (string, error) {
			a, err := w.Store.SavedAddress(ctx, w.UserID)
			if err != nil || a == nil {
				return "", fmt.Errorf("no saved address: %v", err)
			}
			return a.City, nil
		}),
		Script: func(ctx context.Context, s *Scout) (string, error) {
			page, err := s.PageOf(ctx, "placeOrder")
			if err != nil {
				return "", err
			}
			g, err := s.Seen(ctx, page)
			if err != nil {
				return "", err
			}
			var a address
			err = Entity(g, "savedAddress", &a)
			return a.City, err
		}},
	{ID: "most-expensive", Kind: Read,
		Statement: "Which is the most expensive product in the shop?",
		Check: answers(func(ctx context.Context, w *World) (string, error) {
			best, price := "", int64(-1)
			err := eachProduct(ctx, w, func(p *shop.Product) {
				if p.Price.Amount > price {
					best, price = p.Name, p.Price.Amount
				}
			})
			return best, err
		}),
		Script: func(ctx context.Context, s *Scout) (string, error) {
			c, err := catalogPages(ctx, s, "", nil)
			if err != nil {
				return "", err
			}
			best, price := "", int64(-1)
			for _, p := range c.Products {
				if p.Price.Amount > price {
					best, price = p.Name, p.Price.Amount
				}
			}
			return best, nil
		}},
	{ID: "under-20", Kind: Read,
		Statement: "How many products cost less than 20 EUR?",
		Check: answers(func(ctx context.Context, w *World) (string, error) {
			n := 0
			err := eachProduct(ctx, w, func(p *shop.Product) {
				if p.Price.Amount < 2000 {
					n++
				}
			})
			return strconv.Itoa(n), err
		}),
		Script: func(ctx context.Context, s *Scout) (string, error) {
			c, err := catalogPages(ctx, s, "", nil)
			n := 0
			for _, p := range c.Products {
				if p.Price.Amount < 2000 {
					n++
				}
			}
			return strconv.Itoa(n), err
		}},
	{ID: "merino", Kind: Read,
		Statement: "Which products are made of merino? Give their names.",
		Check: answers(func(ctx context.Context, w *World) (string, error) {
			var names []string
			err := eachProduct(ctx, w, func(p *shop.Product) {
				if strings.Contains(strings.ToLower(p.Name+" "+p.Description), "merino") {
					names = append(names, p.Name)
				}
			})
			return strings.Join(names, ", "), err
		}),
		Script: func(ctx context.Context, s *Scout) (string, error) {
			var names []string
			if s.A.Searchable() {
				c, err := catalogPages(ctx, s, "merino", nil)
				if err != nil {
					return "", err
				}
				for _, p := range c.Products {
					names = append(names, p.Name)
				}
				return strings.Join(names, ", "), nil
			}
			// Without a search, every product's page says what it is made of.
			c, err := catalogPages(ctx, s, "", nil)
			if err != nil {
				return "", err
			}
			for _, it := range c.Products {
				_, _, p, err := findProduct(ctx, s, it.Name)
				if err != nil {
					return "", err
				}
				if strings.Contains(strings.ToLower(p.Name+" "+p.Description), "merino") {
					names = append(names, p.Name)
				}
			}
			return strings.Join(names, ", "), nil
		}},
}

// queryFor is the search a path allows for a product's name ("" when it
// allows none).
func queryFor(s *Scout, name string) string {
	if s.A.Searchable() {
		return name
	}
	return ""
}

func hasProduct(c catalog, name string) bool {
	for _, p := range c.Products {
		if p.Name == name {
			return true
		}
	}
	return false
}

// ordered is the answer of a placed order: the site's message.
func ordered(d *protocol.Delta, err error) (string, error) {
	if err != nil {
		return "", err
	}
	return d.Message, nil
}
