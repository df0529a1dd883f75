package shop

import (
	"context"
	"testing"
	"time"
)

// Product keeps what the catalog says of a product for catalogTTL, but
// reads the stock on every call: a sale shows at once, a renamed product
// within a minute.
func TestProduct_CatalogKeptStockFresh(t *testing.T) {
	ctx := context.Background()
	s, db := openStore(t)
	if err := s.Seed(ctx); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	s.now = func() time.Time { return now }
	const slug, sku = "heavyweight-tee", "TEE-BLK-M"
	stock := func() (string, int) {
		t.Helper()
		p, err := s.Product(ctx, slug)
		if err != nil {
			t.Fatal(err)
		}
		return p.Name, p.Variant(sku).Stock
	}
	name, before := stock()
	if _, err := db.ExecContext(ctx, `UPDATE skus SET stock = stock - 1 WHERE sku = ?`, sku); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, `UPDATE products SET name = 'Renamed' WHERE slug = ?`, slug); err != nil {
		t.Fatal(err)
	}
	if n, got := stock(); got != before-1 || n != name {
		t.Fatalf("within a minute: %q with %d in stock, want %q with %d", n, got, name, before-1)
	}
	// A caller must not change what the store keeps.
	p, _ := s.Product(ctx, slug)
	p.Variants[0].Stock, p.Name = 999, "Changed"
	if n, got := stock(); got != before-1 || n != name {
		t.Fatalf("after a caller changed its copy: %q with %d", n, got)
	}
	now = now.Add(catalogTTL + time.Second)
	if n, got := stock(); got != before-1 || n != "Renamed" {
		t.Fatalf("after a minute: %q with %d in stock", n, got)
	}
	if _, err := s.Product(ctx, "no-such-product"); err != ErrNotFound {
		t.Fatalf("a missing product: %v", err)
	}
}
