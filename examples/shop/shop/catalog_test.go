package shop_test

import (
	"context"
	"fmt"
	"maps"
	"testing"
)

// A size added to a product or taken from it shows at once, though the
// catalog keeps the product for a minute, each size with its own stock,
// on both databases (neither lists the sizes in a promised order).
func TestProduct_SizesChangedShowAtOnce(t *testing.T) {
	onEachDatabase(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		db, s := openStore(t, dsn)
		const slug = "heavyweight-tee"
		p, err := s.Product(ctx, slug) // kept from now on
		if err != nil {
			t.Fatal(err)
		}
		exec := func(q string, args ...any) {
			t.Helper()
			if _, err := db.ExecContext(ctx, fmt.Sprintf(q, args...)); err != nil {
				t.Fatal(err)
			}
		}
		want := map[string]int{}
		for i, v := range p.Variants {
			// A stock of its own for each size, so that a number read
			// into another size shows.
			exec(`UPDATE skus SET stock = %d WHERE sku = '%s'`, 10+i, v.SKU)
			want[v.SKU] = 10 + i
		}
		check := func(when string) {
			t.Helper()
			p, err := s.Product(ctx, slug)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]int{}
			for _, v := range p.Variants {
				got[v.SKU] = v.Stock
			}
			if !maps.Equal(got, want) {
				t.Fatalf("%s: %v, want %v", when, got, want)
			}
		}
		check("every size with its own stock")
		first := p.Variants[0].SKU
		exec(`INSERT INTO skus (sku, product_id, colour, size, position, stock)
			SELECT 'TEE-NEW-XXL', product_id, colour, 'XXL', 99, 3 FROM skus WHERE sku = '%s'`, first)
		want["TEE-NEW-XXL"] = 3
		check("a size added")
		exec(`DELETE FROM skus WHERE sku = '%s'`, first)
		delete(want, first)
		check("a size taken away")
	})
}
