package tasks

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/affordances-go/affordances/examples/shop/shop"
)

// reads are questions answered from pages, checked against the
// database.
var reads = []Task{
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
