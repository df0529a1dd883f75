package shop

import (
	"context"
	"fmt"
	"strings"
)

// DemoEmail and DemoPassword are the seeded demo account; OtherEmail and
// OtherPassword a second seeded account, so that what one person may not
// see of another's can be tried.
const (
	DemoEmail     = "demo@example.com"
	DemoPassword  = "demo"
	OtherEmail    = "ada@example.com"
	OtherPassword = "ada"
)

type seedProduct struct {
	slug, name, description string
	price                   int64
	colours                 []string
	sizes                   []string
	stock                   func(colour, size string) int
}

func plenty(string, string) int { return 25 }

var catalog = []seedProduct{
	{"heavyweight-tee", "Heavyweight Tee", "A boxy 240 g/m² cotton tee that keeps its shape wash after wash.", 2900,
		[]string{"Black", "White", "Olive"}, []string{"S", "M", "L", "XL"},
		func(c, s string) int {
			switch {
			case c == "Black" && s == "XL":
				return 0 // one size sold out
			case c == "Black" && s == "M":
				return 12
			}
			return 8
		}},
	{"everyday-hoodie", "Everyday Hoodie", "Brushed-back fleece, a roomy hood and pockets that hold a phone.", 6900,
		[]string{"Grey", "Navy"}, []string{"S", "M", "L", "XL"}, plenty},
	{"canvas-tote", "Canvas Tote", "Heavy canvas, long handles, an inside pocket for keys.", 1900,
		[]string{"Natural", "Black"}, []string{"One size"}, plenty},
	{"wool-beanie", "Wool Beanie", "Rib-knit merino that is warm without itching.", 2400,
		[]string{"Charcoal", "Rust"}, []string{"One size"}, plenty},
	{"chore-jacket", "Chore Jacket", "Cotton twill work jacket with three patch pockets.", 12900,
		[]string{"Indigo", "Khaki"}, []string{"S", "M", "L"}, plenty},
	{"crew-socks", "Crew Socks", "Cushioned soles and a cuff that stays up. Pack of three.", 1500,
		[]string{"White", "Black"}, []string{"36-40", "41-46"}, plenty},
	{"linen-shirt", "Linen Shirt", "Washed linen, a relaxed fit for warm days.", 7900,
		[]string{"Sand", "Sky"}, []string{"S", "M", "L", "XL"}, plenty},
	{"cargo-trousers", "Cargo Trousers", "Ripstop cotton with deep side pockets and a tapered leg.", 8900,
		[]string{"Olive", "Black"}, []string{"30", "32", "34", "36"}, plenty},
	{"baseball-cap", "Baseball Cap", "Six panels of washed cotton and a brass buckle.", 2200,
		[]string{"Navy", "Stone"}, []string{"One size"}, plenty},
	{"rain-shell", "Rain Shell", "A light, packable shell with taped seams.", 14900,
		[]string{"Yellow", "Black"}, []string{"S", "M", "L", "XL"}, plenty},
	{"merino-scarf", "Merino Scarf", "A long, soft scarf in fine merino.", 3900,
		[]string{"Oat", "Forest"}, []string{"One size"}, plenty},
	{"leather-belt", "Leather Belt", "Vegetable-tanned leather that ages well.", 4500,
		[]string{"Brown", "Black"}, []string{"85", "95", "105"}, plenty},
	{"enamel-mug", "Enamel Mug", "A camp mug that survives being dropped.", 1200,
		[]string{"White"}, []string{"350 ml"}, plenty},
	{"field-notebook", "Field Notebook", "Dot-grid pages, a stiff cover and a pen loop.", 900,
		[]string{"Kraft"}, []string{"A5"}, plenty},
}

// skuCode makes a SKU such as TEE-BLK-M from a product and a variant.
func skuCode(slug, colour, size string) string {
	prefix := strings.ToUpper(strings.Split(slug, "-")[len(strings.Split(slug, "-"))-1])
	if len(prefix) > 4 {
		prefix = prefix[:4]
	}
	c := strings.ToUpper(colour)
	if len(c) > 3 {
		c = c[:3]
	}
	if c == "BLA" {
		c = "BLK"
	}
	s := strings.ToUpper(strings.NewReplacer(" ", "", "-", "").Replace(size))
	return prefix + "-" + c + "-" + s
}

// Seed fills an empty store with the catalog and the demo account. It does
// nothing when products already exist. Instances that start at once on an
// empty PostgreSQL database seed it once: the check and the inserts run in
// one transaction under an advisory lock, so the second waits for the
// first and then finds the products.
func (s *Store) Seed(ctx context.Context) error {
	var n int
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM products`).Scan(&n); err != nil {
		return fmt.Errorf("seeding: %w", err)
	}
	if n > 0 {
		return nil
	}
	hash, err := s.hashPassword(DemoPassword)
	if err != nil {
		return err
	}
	otherHash, err := s.hashPassword(OtherPassword)
	if err != nil {
		return err
	}
	return s.tx(ctx, func(tx *Tx) error {
		if tx.db.postgres {
			if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(7243002)`); err != nil {
				return err
			}
		}
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM products`).Scan(&n); err != nil || n > 0 {
			return err
		}
		for _, p := range catalog {
			var id int64
			if err := tx.QueryRowContext(ctx, `INSERT INTO products (slug, name, description, price, currency) VALUES (?, ?, ?, ?, 'EUR') RETURNING id`,
				p.slug, p.name, p.description, p.price).Scan(&id); err != nil {
				return err
			}
			pos := 0
			for _, c := range p.colours {
				for _, sz := range p.sizes {
					pos++
					if _, err := tx.ExecContext(ctx, `INSERT INTO skus (sku, product_id, colour, size, position, stock) VALUES (?, ?, ?, ?, ?, ?)`,
						skuCode(p.slug, c, sz), id, c, sz, pos, p.stock(c, sz)); err != nil {
						return err
					}
				}
			}
		}
		for _, u := range []struct {
			email, name, hash string
			addr              Address
		}{
			{DemoEmail, "Demo Shopper", hash, Address{Name: "Demo Shopper", Street: "12 Rue des Archives", Postcode: "75004", City: "Paris", Country: "FR"}},
			{OtherEmail, "Ada Shopper", otherHash, Address{Name: "Ada Shopper", Street: "3 Kingsway", Postcode: "WC2B 6TE", City: "London", Country: "GB"}},
		} {
			var id int64
			if err := tx.QueryRowContext(ctx, `INSERT INTO users (email, name, password_hash) VALUES (?, ?, ?) RETURNING id`, u.email, u.name, u.hash).Scan(&id); err != nil {
				return err
			}
			if err := saveAddress(ctx, tx, id, u.addr); err != nil {
				return err
			}
		}
		return nil
	})
}
