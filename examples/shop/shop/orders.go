package shop

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Order is a placed order.
type Order struct {
	ID        int64       `json:"id"`
	Status    string      `json:"status"`
	Total     Money       `json:"total"`
	CreatedAt time.Time   `json:"createdAt"`
	Items     []OrderItem `json:"items,omitempty"`
	Address   *Address    `json:"address,omitempty"`
}

// OrderItem is one line of an order, with the name and price it was sold
// at.
type OrderItem struct {
	SKU       string `json:"sku"`
	Product   string `json:"product"`
	Colour    string `json:"colour"`
	Size      string `json:"size"`
	Qty       int    `json:"qty"`
	UnitPrice Money  `json:"unitPrice"`
}

// Cancellable reports whether the order can still be cancelled.
func (o *Order) Cancellable() bool { return o.Status == "placed" }

// PlaceOrder turns the user's cart into an order. Stock is decremented in
// the same transaction as the order is written, with a condition on the
// stock, so concurrent buyers of the last items never oversell: whoever
// comes second gets ErrUnavailable and nothing changes. check, when not
// nil, is given the cart as the transaction read it, under the cart's
// lock, before anything is written: an error from it rolls everything
// back and is returned as it is (placeOrder checks there that the cart is
// the one the person approved).
func (s *Store) PlaceOrder(ctx context.Context, userID int64, to *Delivery, check func(Cart) error) (int64, error) {
	return s.PlaceOrderWithGrant(ctx, userID, nil, to, check)
}

// PlaceOrderWithGrant is PlaceOrder for a token's standing approval (nil:
// none): inside the order's transaction, under the cart's lock, the order
// is held to the grant's amount per order and per day, and written with
// its token; beyond them it is site.ErrOutsideGrant and nothing is
// written.
func (s *Store) PlaceOrderWithGrant(ctx context.Context, userID int64, g *OrderGrant, to *Delivery, check func(Cart) error) (int64, error) {
	var orderID int64
	err := s.tx(ctx, func(tx *Tx) error {
		owner := CartOwner{UserID: userID}
		// Two orders of one person at once: the second waits for the
		// first, then finds the cart empty.
		if _, err := tx.ExecContext(ctx, `SELECT id FROM carts WHERE user_id = ?`+tx.db.forUpdate(), userID); err != nil {
			return err
		}
		c, err := cartOf(ctx, tx, owner)
		if err != nil {
			return err
		}
		if len(c.Lines) == 0 {
			return unavailable("your cart is empty")
		}
		if check != nil {
			if err := check(c); err != nil {
				return err
			}
		}
		var tokenID any
		if g != nil {
			if err := s.checkGrant(ctx, tx, g, c.Total.Amount); err != nil {
				return err
			}
			tokenID = g.TokenID
		}
		for _, l := range c.Lines {
			res, err := tx.ExecContext(ctx, `UPDATE skus SET stock = stock - ? WHERE sku = ? AND stock >= ?`, l.Qty, l.SKU, l.Qty)
			if err != nil {
				return err
			}
			if n, _ := res.RowsAffected(); n == 0 {
				return unavailable("%s %s (%s, %s) sold out in the meantime: change your cart and try again", l.Product, l.SKU, l.Colour, l.Size)
			}
		}
		if err := tx.QueryRowContext(ctx, `INSERT INTO orders (user_id, status, total, currency, created_at, token_id) VALUES (?, 'placed', ?, ?, ?, ?) RETURNING id`,
			userID, c.Total.Amount, c.Total.Currency, s.now().Unix(), tokenID).Scan(&orderID); err != nil {
			return err
		}
		for _, l := range c.Lines {
			if _, err := tx.ExecContext(ctx, `INSERT INTO order_items (order_id, sku, name, colour, size, qty, price) VALUES (?, ?, ?, ?, ?, ?, ?)`,
				orderID, l.SKU, l.Product, l.Colour, l.Size, l.Qty, l.UnitPrice.Amount); err != nil {
				return err
			}
		}
		if to != nil {
			a := to.Address.trimmed()
			if _, err := tx.ExecContext(ctx, `INSERT INTO order_addresses (order_id, name, street, postcode, city, country) VALUES (?, ?, ?, ?, ?, ?)`,
				orderID, a.Name, a.Street, a.Postcode, a.City, a.Country); err != nil {
				return err
			}
			if to.Save {
				if err := saveAddress(ctx, tx, userID, a); err != nil {
					return err
				}
			}
		}
		_, err = tx.ExecContext(ctx, `DELETE FROM cart_items WHERE cart_id = (SELECT id FROM carts WHERE user_id = ?)`, userID)
		return err
	})
	return orderID, err
}

// Delivery is where an order goes, and whether the address is kept as
// the account's address for next time. Both are written in the order's
// transaction: an order is never without its address, nor a saved
// address without its order.
type Delivery struct {
	Address Address
	Save    bool
}

// Orders lists the user's orders, newest first, without their items.
func (s *Store) Orders(ctx context.Context, userID int64) ([]Order, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, status, total, currency, created_at FROM orders WHERE user_id = ? ORDER BY id DESC`, userID)
	if err != nil {
		return nil, fmt.Errorf("listing orders: %w", err)
	}
	defer rows.Close()
	out := []Order{}
	for rows.Next() {
		var o Order
		var at int64
		if err := rows.Scan(&o.ID, &o.Status, &o.Total.Amount, &o.Total.Currency, &at); err != nil {
			return nil, err
		}
		o.CreatedAt = time.Unix(at, 0).UTC()
		out = append(out, o)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows.Close()
	// Every order's lines, in one query, for the list to show what each was.
	byID := make(map[int64]*Order, len(out))
	for i := range out {
		byID[out[i].ID] = &out[i]
	}
	items, err := s.db.QueryContext(ctx, `SELECT i.order_id, i.sku, i.name, i.colour, i.size, i.qty, i.price FROM order_items i
		JOIN orders o ON o.id = i.order_id LEFT JOIN skus k ON k.sku = i.sku
		WHERE o.user_id = ? ORDER BY i.order_id, k.product_id, k.position, i.sku`, userID)
	if err != nil {
		return nil, fmt.Errorf("listing order lines: %w", err)
	}
	defer items.Close()
	for items.Next() {
		var id int64
		var it OrderItem
		if err := items.Scan(&id, &it.SKU, &it.Product, &it.Colour, &it.Size, &it.Qty, &it.UnitPrice.Amount); err != nil {
			return nil, err
		}
		if o := byID[id]; o != nil {
			it.UnitPrice.Currency = o.Total.Currency
			o.Items = append(o.Items, it)
		}
	}
	return out, items.Err()
}

// Order returns one of the user's orders with its items. Another user's
// order is ErrNotFound, exactly like one that does not exist.
func (s *Store) Order(ctx context.Context, userID, id int64) (*Order, error) {
	return orderOf(ctx, s.db, userID, id)
}

// OrderExists reports whether the user has an order with this id, as the
// order page's existence check: one indexed read. ErrNotFound when the
// order does not exist or is someone else's.
func (s *Store) OrderExists(ctx context.Context, userID, id int64) error {
	var one int
	err := s.db.QueryRowContext(ctx, `SELECT 1 FROM orders WHERE id = ? AND user_id = ?`, id, userID).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return ErrNotFound
	}
	if err != nil {
		return fmt.Errorf("finding order %d: %w", id, err)
	}
	return nil
}

func orderOf(ctx context.Context, q querier, userID, id int64) (*Order, error) {
	var o Order
	var at int64
	err := q.QueryRowContext(ctx, `SELECT id, status, total, currency, created_at FROM orders WHERE id = ? AND user_id = ?`, id, userID).
		Scan(&o.ID, &o.Status, &o.Total.Amount, &o.Total.Currency, &at)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("reading order %d: %w", id, err)
	}
	o.CreatedAt = time.Unix(at, 0).UTC()
	if o.Address, err = orderAddress(ctx, q, id); err != nil {
		return nil, err
	}
	rows, err := q.QueryContext(ctx, `SELECT i.sku, i.name, i.colour, i.size, i.qty, i.price FROM order_items i LEFT JOIN skus k ON k.sku = i.sku
		WHERE i.order_id = ? ORDER BY k.product_id, k.position, i.sku`, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		it := OrderItem{UnitPrice: Money{Currency: o.Total.Currency}}
		if err := rows.Scan(&it.SKU, &it.Product, &it.Colour, &it.Size, &it.Qty, &it.UnitPrice.Amount); err != nil {
			return nil, err
		}
		o.Items = append(o.Items, it)
	}
	return &o, rows.Err()
}

// CancelOrder cancels an order that has not shipped and puts its items
// back in stock, in one transaction.
func (s *Store) CancelOrder(ctx context.Context, userID, id int64) error {
	return s.tx(ctx, func(tx *Tx) error {
		o, err := orderOf(ctx, tx, userID, id)
		if err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `UPDATE orders SET status = 'cancelled' WHERE id = ? AND status = 'placed'`, id)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return unavailable("order %d is %s and can no longer be cancelled", id, o.Status)
		}
		for _, it := range o.Items {
			if _, err := tx.ExecContext(ctx, `UPDATE skus SET stock = stock + ? WHERE sku = ?`, it.Qty, it.SKU); err != nil {
				return err
			}
		}
		return nil
	})
}

// MarkShipped marks an order shipped (the warehouse's side; used by tests
// and the seed).
func (s *Store) MarkShipped(ctx context.Context, id int64) error {
	_, err := s.db.ExecContext(ctx, `UPDATE orders SET status = 'shipped' WHERE id = ? AND status = 'placed'`, id)
	return err
}
