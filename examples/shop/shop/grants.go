package shop

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/affordances-go/affordances/site"
)

// Grants: what a person lets one token do. A token may be limited to some
// actions (its scopes), may expire, and may carry a standing approval of
// orders: up to an amount per order and per day, delivered to the
// account's saved address only. Within it, an agent's order runs without
// the approval page; beyond it, the person is asked as for any token.

// Grant is what a token may do.
type Grant struct {
	// Actions, when not nil, are the only actions the token may run.
	Actions []string `json:"actions,omitempty"`
	// Expires is when the token stops working; zero: never.
	Expires time.Time `json:"expires,omitzero"`
	// OrderLimit and DayLimit bound the orders the token may place without
	// asking the person, in cents: zero OrderLimit is no standing
	// approval.
	OrderLimit int64 `json:"orderLimit,omitempty"`
	DayLimit   int64 `json:"dayLimit,omitempty"`
}

// Standing reports whether the grant approves orders in advance.
func (g Grant) Standing() bool { return g.OrderLimit > 0 }

// grantActions are the actions a token can be granted, as the account
// page offers them.
var grantActions = []string{"addToCart", "setQuantity", "removeFromCart", "placeOrder", "cancelOrder"}

// actionWords says what each action a token can be granted does, as a
// shopper reads it on the account page.
var actionWords = map[string]string{
	"addToCart":      "put things in your cart",
	"setQuantity":    "change quantities in your cart",
	"removeFromCart": "take things out of your cart",
	"placeOrder":     "place orders",
	"cancelOrder":    "cancel orders",
}

// inWords is an action a token can be granted, in a shopper's words.
func inWords(action string) string {
	if w, ok := actionWords[action]; ok {
		return w
	}
	return action
}

// scopesColumn writes a grant's actions for the tokens table: NULL for
// every action.
func scopesColumn(actions []string) any {
	if actions == nil {
		return nil
	}
	return strings.Join(actions, ",")
}

func scopesOf(col sql.NullString) []string {
	if !col.Valid {
		return nil
	}
	if col.String == "" {
		return []string{}
	}
	return strings.Split(col.String, ",")
}

// CreateGrantedToken issues a token with a grant and returns it; only
// its hash is stored.
func (s *Store) CreateGrantedToken(ctx context.Context, userID int64, label string, g Grant) (string, error) {
	plain, hash := secret("afk_")
	var expires any
	if !g.Expires.IsZero() {
		expires = g.Expires.Unix()
	}
	err := s.exec(ctx, `INSERT INTO tokens (user_id, hash, label, created_at, scopes, expires_at, order_limit, day_limit)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, userID, hash, label, s.now().Unix(), scopesColumn(g.Actions), expires, g.OrderLimit, g.DayLimit)
	if err != nil {
		return "", fmt.Errorf("creating token: %w", err)
	}
	return plain, nil
}

// spentToday is what the token's orders of today (UTC) total, not
// counting cancelled ones, inside the order's transaction: the cart's
// lock, which every order of the token's owner takes first, makes the
// sum and the new order one step even across instances.
func spentToday(ctx context.Context, tx querier, tokenID int64, now time.Time) (int64, error) {
	day := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC).Unix()
	var spent sql.NullInt64
	err := tx.QueryRowContext(ctx, `SELECT sum(total) FROM orders WHERE token_id = ? AND created_at >= ? AND status <> 'cancelled'`,
		tokenID, day).Scan(&spent)
	return spent.Int64, err
}

// Covers implements site.StandingApprovals: an order by a token whose
// grant approves orders in advance, to the saved address, within the
// amount per order and what is left of the day's. The order checks
// again, inside its transaction (PlaceOrderWithGrant).
func (a *App) Covers(r *site.Request, action string, input any, _, _ string) bool {
	sh := shopperOf(r)
	if action != "placeOrder" || sh.User == nil || sh.Token == nil || !sh.Token.Grant.Standing() {
		return false
	}
	in, ok := input.(PlaceOrder)
	if !ok || in.Address != nil || in.SaveAddress {
		// A new address is the person's to approve, and so is any call
		// that would change the saved address, which bounds this very
		// approval: a standing approval never covers a call that changes
		// what bounds it.
		return false
	}
	ctx := r.Context()
	if saved, err := a.store.SavedAddress(ctx, sh.User.ID); err != nil || saved == nil {
		return false
	}
	c, err := a.store.Cart(ctx, CartOwner{UserID: sh.User.ID})
	if err != nil || len(c.Lines) == 0 || c.Total.Amount > sh.Token.Grant.OrderLimit {
		return false
	}
	spent, err := a.store.SpentToday(ctx, sh.Token.ID)
	return err == nil && spent+c.Total.Amount <= sh.Token.Grant.DayLimit
}

// Beyond implements site.StandingReasons: why an order of a token with a
// standing approval of orders is not covered by it, in words for the
// approval page; "" for a token without one.
func (a *App) Beyond(r *site.Request, action string, input any) string {
	sh := shopperOf(r)
	if action != "placeOrder" || sh.User == nil || sh.Token == nil || !sh.Token.Grant.Standing() {
		return ""
	}
	g := sh.Token.Grant
	in, _ := input.(PlaceOrder)
	ctx := r.Context()
	switch saved, err := a.store.SavedAddress(ctx, sh.User.ID); {
	case in.Address != nil:
		return "beyond your standing approval: it goes to an address other than your saved one"
	case in.SaveAddress:
		return "beyond your standing approval: it would change your saved address"
	case err != nil || saved == nil:
		return "beyond your standing approval: you have no saved address"
	}
	c, err := a.store.Cart(ctx, CartOwner{UserID: sh.User.ID})
	if err != nil {
		return ""
	}
	if c.Total.Amount > g.OrderLimit {
		return fmt.Sprintf("beyond your standing approval: %s, over %s an order", c.Total, Money{Amount: g.OrderLimit, Currency: c.Total.Currency})
	}
	spent, err := a.store.SpentToday(ctx, sh.Token.ID)
	if err != nil {
		return ""
	}
	return fmt.Sprintf("beyond your standing approval: %s, with %s of %s used today", c.Total,
		Money{Amount: spent, Currency: c.Total.Currency}, Money{Amount: g.DayLimit, Currency: c.Total.Currency})
}

// SpentToday is what a token's orders of today total. It reads outside
// any transaction (a transaction of the store would commit the call's
// Idempotency-Key): the order checks again inside its own.
func (s *Store) SpentToday(ctx context.Context, tokenID int64) (int64, error) {
	return spentToday(ctx, s.db, tokenID, s.now())
}

// checkGrant holds an order to its token's grant, inside the order's
// transaction.
func (s *Store) checkGrant(ctx context.Context, tx *Tx, g *OrderGrant, total int64) error {
	if total > g.Grant.OrderLimit {
		return site.ErrOutsideGrant
	}
	spent, err := spentToday(ctx, tx, g.TokenID, s.now())
	if err != nil {
		return err
	}
	if spent+total > g.Grant.DayLimit {
		return site.ErrOutsideGrant
	}
	return nil
}

// OrderGrant is the token an order is placed with on its standing
// approval.
type OrderGrant struct {
	TokenID int64
	Grant   Grant
}

// Describe says what a grant allows, as the account page shows it.
func (g Grant) Describe() string {
	var parts []string
	if g.Actions == nil {
		parts = append(parts, "everything you can do")
	} else if len(g.Actions) == 0 {
		parts = append(parts, "nothing")
	} else {
		words := make([]string, len(g.Actions))
		for i, a := range g.Actions {
			words[i] = inWords(a)
		}
		parts = append(parts, "only "+strings.Join(words, ", "))
	}
	if g.Standing() {
		parts = append(parts, "orders up to "+Money{Amount: g.OrderLimit, Currency: "EUR"}.String()+" each and "+
			Money{Amount: g.DayLimit, Currency: "EUR"}.String()+" a day to your saved address without asking you")
	} else {
		parts = append(parts, "asks you before every order")
	}
	if !g.Expires.IsZero() {
		parts = append(parts, "until "+g.Expires.Format("2 Jan 2006"))
	}
	return strings.Join(parts, "; ")
}
