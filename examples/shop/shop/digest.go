package shop

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
)

// digestQueries read, in a fixed order, every row a call can change.
// Sessions are read without their flash message, which a page view clears.
var digestQueries = []string{
	`SELECT sku, stock FROM skus ORDER BY sku`,
	`SELECT id, email, name, password_hash FROM users ORDER BY id`,
	`SELECT id_hash, user_id, expires_at FROM sessions ORDER BY id_hash`,
	`SELECT id, account, hash, label, coalesce(revoked_at, 0) FROM afford_tokens ORDER BY id`,
	`SELECT id, coalesce(user_id, 0), coalesce(guest_hash, '') FROM carts ORDER BY id`,
	`SELECT cart_id, sku, qty FROM cart_items ORDER BY cart_id, sku`,
	`SELECT * FROM orders ORDER BY id`,
	`SELECT order_id, sku, qty FROM order_items ORDER BY order_id, sku`,
}

// StateDigest returns a digest of everything a call can change: stock,
// accounts, sessions, tokens, carts and orders. Tests compare it before
// and after a refused call to prove that nothing changed.
func (s *Store) StateDigest(ctx context.Context) (string, error) {
	h := sha256.New()
	for _, q := range digestQueries {
		if err := digestRows(ctx, s.db, q, h); err != nil {
			return "", fmt.Errorf("state digest: %w", err)
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func digestRows(ctx context.Context, db querier, q string, h interface{ Write([]byte) (int, error) }) error {
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		return err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return err
	}
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return err
		}
		fmt.Fprintf(h, "%v\n", vals)
	}
	fmt.Fprintf(h, "--\n")
	return rows.Err()
}
