package shop

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// CartOwner identifies a cart: a signed-in user's, or a guest's by the
// hash of its cookie. The zero value owns no cart.
type CartOwner struct {
	UserID    int64
	GuestHash string
}

func (o CartOwner) none() bool { return o.UserID == 0 && o.GuestHash == "" }

// Cart is a cart's content.
type Cart struct {
	Lines []CartLine `json:"lines"`
	Count int        `json:"count"`
	Total Money      `json:"total"`
}

// CartLine is one SKU in a cart.
type CartLine struct {
	SKU       string `json:"sku"`
	Product   string `json:"product"`
	Slug      string `json:"slug"`
	Colour    string `json:"colour"`
	Size      string `json:"size"`
	Qty       int    `json:"qty"`
	UnitPrice Money  `json:"unitPrice"`
	Total     Money  `json:"total"`
	InStock   int    `json:"inStock"`
}

// MaxQty is the most of one SKU a cart holds.
const MaxQty = 10

// Cart returns the owner's cart (empty when it has none).
func (s *Store) Cart(ctx context.Context, o CartOwner) (Cart, error) {
	return cartOf(ctx, s.db, o)
}

func cartOf(ctx context.Context, q querier, o CartOwner) (Cart, error) {
	c := Cart{Lines: []CartLine{}, Total: Money{Currency: "EUR"}}
	if o.none() {
		return c, nil
	}
	// One query per kind of owner: an OR of both would make SQLite compile
	// the query again on every run, its plan hanging on the bound values.
	col, key := "c.user_id", any(o.UserID)
	if o.UserID == 0 {
		col, key = "c.guest_hash", any(o.GuestHash)
	}
	rows, err := q.QueryContext(ctx, `
		SELECT i.sku, p.name, p.slug, k.colour, k.size, i.qty, p.price, p.currency, k.stock
		FROM carts c JOIN cart_items i ON i.cart_id = c.id JOIN skus k ON k.sku = i.sku JOIN products p ON p.id = k.product_id
		WHERE `+col+` = ?
		ORDER BY p.id, k.position`, key)
	if err != nil {
		return c, fmt.Errorf("reading cart: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var l CartLine
		if err := rows.Scan(&l.SKU, &l.Product, &l.Slug, &l.Colour, &l.Size, &l.Qty, &l.UnitPrice.Amount, &l.UnitPrice.Currency, &l.InStock); err != nil {
			return c, err
		}
		l.Total = Money{l.UnitPrice.Amount * int64(l.Qty), l.UnitPrice.Currency}
		c.Lines = append(c.Lines, l)
		c.Count += l.Qty
		c.Total.Amount += l.Total.Amount
	}
	return c, rows.Err()
}

// cartID returns the owner's cart id, creating the cart when create is
// set, and locks the cart's row until the transaction ends (on
// PostgreSQL; SQLite's one connection serialises every transaction
// already). Every write of a cart's lines goes through it, so that two
// writes of one cart (two adds, an add and an order) run one after the
// other, each reading what the other committed. The cart is created with
// an INSERT that does nothing when another request created it first, so
// the first adds of a new account, at once, share one cart.
func (s *Store) cartID(ctx context.Context, tx *Tx, o CartOwner, create bool) (int64, error) {
	col, key := "user_id", any(o.UserID)
	if o.UserID == 0 {
		col, key = "guest_hash", any(o.GuestHash)
	}
	if create {
		if _, err := tx.ExecContext(ctx, `INSERT INTO carts (`+col+`, created_at) VALUES (?, ?) ON CONFLICT (`+col+`) DO NOTHING`,
			key, s.now().Unix()); err != nil {
			return 0, err
		}
	}
	var id int64
	err := tx.QueryRowContext(ctx, `SELECT id FROM carts WHERE `+col+` = ?`+tx.db.forUpdate(), key).Scan(&id)
	return id, err
}

// ErrUnavailable wraps the reasons an action cannot be done right now; its
// message is written for the shopper.
type ErrUnavailable struct{ Reason string }

func (e *ErrUnavailable) Error() string { return e.Reason }

func unavailable(format string, args ...any) error {
	return &ErrUnavailable{Reason: fmt.Sprintf(format, args...)}
}

// AddToCart adds qty of sku to the owner's cart, within the stock and the
// per-line maximum, and returns the new line.
func (s *Store) AddToCart(ctx context.Context, o CartOwner, sku string, qty int) (CartLine, error) {
	if o.none() {
		return CartLine{}, errors.New("shop: AddToCart without a cart owner")
	}
	if o.UserID == 0 { // guests make carts; one clears those nobody can reach
		s.sweepIfDue(&s.cartsSwept, "forgetting abandoned guest carts", s.ForgetAbandonedGuestCarts)
	}
	var line CartLine
	err := s.tx(ctx, func(tx *Tx) error {
		var stock int
		err := tx.QueryRowContext(ctx, `SELECT stock FROM skus WHERE sku = ?`, sku).Scan(&stock)
		if errors.Is(err, sql.ErrNoRows) {
			return unavailable("there is no SKU %s", sku)
		}
		if err != nil {
			return err
		}
		id, err := s.cartID(ctx, tx, o, true)
		if err != nil {
			return err
		}
		var have int
		err = tx.QueryRowContext(ctx, `SELECT qty FROM cart_items WHERE cart_id = ? AND sku = ?`, id, sku).Scan(&have)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		want := have + qty
		switch {
		case stock == 0:
			return unavailable("%s is out of stock", sku)
		case want > stock:
			return unavailable("only %d of %s in stock (you have %d in your cart)", stock, sku, have)
		case want > MaxQty:
			return unavailable("at most %d of one item per order (you have %d in your cart)", MaxQty, have)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO cart_items (cart_id, sku, qty) VALUES (?, ?, ?)
			ON CONFLICT (cart_id, sku) DO UPDATE SET qty = excluded.qty`, id, sku, want); err != nil {
			return err
		}
		c, err := cartOf(ctx, tx, o)
		if err != nil {
			return err
		}
		for _, l := range c.Lines {
			if l.SKU == sku {
				line = l
			}
		}
		return nil
	})
	return line, err
}

// SetQuantity sets the quantity of a line; zero removes it.
func (s *Store) SetQuantity(ctx context.Context, o CartOwner, sku string, qty int) error {
	return s.tx(ctx, func(tx *Tx) error {
		id, err := s.cartID(ctx, tx, o, false)
		if errors.Is(err, sql.ErrNoRows) || o.none() {
			return unavailable("your cart is empty")
		}
		if err != nil {
			return err
		}
		if qty == 0 {
			res, err := tx.ExecContext(ctx, `DELETE FROM cart_items WHERE cart_id = ? AND sku = ?`, id, sku)
			if err != nil {
				return err
			}
			if n, _ := res.RowsAffected(); n == 0 {
				return unavailable("%s is not in your cart", sku)
			}
			return nil
		}
		var stock int
		if err := tx.QueryRowContext(ctx, `SELECT stock FROM skus WHERE sku = ?`, sku).Scan(&stock); err != nil {
			if errors.Is(err, sql.ErrNoRows) {
				return unavailable("%s is not in your cart", sku)
			}
			return err
		}
		if qty > stock {
			return unavailable("only %d of %s in stock", stock, sku)
		}
		res, err := tx.ExecContext(ctx, `UPDATE cart_items SET qty = ? WHERE cart_id = ? AND sku = ?`, qty, id, sku)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return unavailable("%s is not in your cart", sku)
		}
		return nil
	})
}

// MergeGuestCart moves a guest's cart into the user's, adding quantities
// (capped at MaxQty and the stock), and deletes the guest cart.
func (s *Store) MergeGuestCart(ctx context.Context, guestHash string, userID int64) error {
	if guestHash == "" {
		return nil
	}
	return s.tx(ctx, func(tx *Tx) error {
		guest, err := s.cartID(ctx, tx, CartOwner{GuestHash: guestHash}, false)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		user, err := s.cartID(ctx, tx, CartOwner{UserID: userID}, true)
		if err != nil {
			return err
		}
		least := tx.db.least()
		if _, err := tx.ExecContext(ctx, `
			INSERT INTO cart_items (cart_id, sku, qty)
			SELECT ?, i.sku, `+least+`(i.qty, ?, k.stock) FROM cart_items i JOIN skus k ON k.sku = i.sku
			WHERE i.cart_id = ? AND k.stock > 0
			ON CONFLICT (cart_id, sku) DO UPDATE SET qty = `+least+`(cart_items.qty + excluded.qty, ?,
				(SELECT stock FROM skus WHERE sku = excluded.sku))`, user, MaxQty, guest, MaxQty); err != nil {
			return fmt.Errorf("merging carts: %w", err)
		}
		_, err = tx.ExecContext(ctx, `DELETE FROM carts WHERE id = ?`, guest)
		return err
	})
}
