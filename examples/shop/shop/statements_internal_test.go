package shop

import "testing"

func TestPreparable(t *testing.T) {
	for q, want := range map[string]bool{
		"SELECT id FROM carts WHERE user_id = ?":                   true,
		"\n\t\tSELECT i.sku FROM cart_items i":                     true,
		"insert into orders (user_id) values (?) RETURNING id":     true,
		"UPDATE orders SET status = 'cancelled' WHERE id = ?":      true,
		"DELETE FROM cart_items WHERE cart_id = ?;":                true,
		"WITH x AS (SELECT 1) SELECT * FROM x":                     true,
		"CREATE TABLE a (id INTEGER); CREATE TABLE b (id INTEGER)": false,
		"SELECT 1; DELETE FROM carts":                              false,
		"ALTER TABLE tokens ADD COLUMN scopes TEXT":                false,
		"PRAGMA optimize":                  false,
		"SELECT pg_advisory_lock(7243001)": true,
	} {
		if got := preparable(q); got != want {
			t.Errorf("preparable(%q) = %v, want %v", q, got, want)
		}
	}
}
