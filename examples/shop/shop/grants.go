package shop

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/affordances-go/affordances/site/tokens"

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

// tokenChoices are the actions a token can be granted, with what each
// does in a shopper's words, as the account page offers them.
var tokenChoices = []tokens.Choice{
	{Action: "addToCart", Words: "put things in your cart"},
	{Action: "setQuantity", Words: "change quantities in your cart"},
	{Action: "removeFromCart", Words: "take things out of your cart"},
	{Action: "placeOrder", Words: "place orders"},
	{Action: "cancelOrder", Words: "cancel orders"},
}

// grantActions are the names of tokenChoices.
var grantActions = func() []string {
	names := make([]string, len(tokenChoices))
	for i, c := range tokenChoices {
		names[i] = c.Action
	}
	return names
}()

// standingOffer is the standing approval the account page offers: orders
// to the saved address, up to 1,000 EUR each and 5,000 EUR a day.
var standingOffer = &tokens.StandingOffer{Action: "placeOrder", Unit: "EUR", Scale: 100, MaxPerCall: 1000, MaxPerDay: 5000}

// grantOf is the kit's grant in the store's words: the standing
// approval is of orders, in cents.
func grantOf(g tokens.Grant) Grant {
	return Grant{Actions: g.Actions, Expires: utc(g.Expires), OrderLimit: g.Standing.PerCall, DayLimit: g.Standing.PerDay}
}

// kitGrant is the grant as the token kit keeps it.
func (g Grant) kitGrant() tokens.Grant {
	return tokens.Grant{Actions: g.Actions, Expires: g.Expires, Standing: tokens.Standing{PerCall: g.OrderLimit, PerDay: g.DayLimit}}
}

// CreateGrantedToken issues a token with a grant and returns it; only
// its hash is stored.
func (s *Store) CreateGrantedToken(ctx context.Context, userID int64, label string, g Grant) (string, error) {
	secret, _, err := s.kit.Issue(ctx, tokenAccount(userID), label, g.kitGrant())
	if err != nil {
		return "", fmt.Errorf("creating token: %w", err)
	}
	return secret, nil
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

// standingGate is the shop's gate of site.StageStanding: an order its
// token's grant covers runs at once; one it does not is sent to the
// person, who reads why (Consent.Beyond).
func (a *App) standingGate(r *site.Request, c *site.Consent) error {
	covered, why := a.coverage(r, c.Action, c.Input)
	if covered {
		c.Grant(c.Basis)
		return nil
	}
	c.Beyond = why
	return nil
}

// coverage reports whether an order by a token whose grant approves
// orders in advance is covered (to the saved address, within the amount
// per order and what is left of the day's) and, when it is not, why, in
// words for the approval page ("" for a call no standing approval could
// cover). It reads the saved address, the cart and the day's spending
// once each; the order checks again, inside its transaction
// (PlaceOrderWithGrant).
func (a *App) coverage(r *site.Request, action string, input any) (covered bool, why string) {
	sh := shopperOf(r)
	if action != "placeOrder" || sh.User == nil || sh.Token == nil || !sh.Token.Grant.Standing() {
		return false, ""
	}
	g := sh.Token.Grant
	in, _ := input.(PlaceOrder)
	// A new address is the person's to approve, and so is any call that
	// would change the saved address, which bounds this very approval: a
	// standing approval never covers a call that changes what bounds it.
	switch {
	case in.Address != nil:
		return false, "beyond your standing approval: it goes to an address other than your saved one"
	case in.SaveAddress:
		return false, "beyond your standing approval: it would change your saved address"
	}
	ctx := r.Context()
	if saved, err := a.store.SavedAddress(ctx, sh.User.ID); err != nil || saved == nil {
		return false, "beyond your standing approval: you have no saved address"
	}
	c, err := a.store.Cart(ctx, CartOwner{UserID: sh.User.ID})
	if err != nil || len(c.Lines) == 0 {
		return false, ""
	}
	if c.Total.Amount > g.OrderLimit {
		return false, fmt.Sprintf("beyond your standing approval: %s, over %s an order", c.Total, Money{Amount: g.OrderLimit, Currency: c.Total.Currency})
	}
	spent, err := a.store.SpentToday(ctx, sh.Token.ID)
	if err != nil {
		return false, ""
	}
	if spent+c.Total.Amount <= g.DayLimit {
		return true, ""
	}
	return false, fmt.Sprintf("beyond your standing approval: %s, with %s of %s used today", c.Total,
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
