package tasks

import (
	"context"
	"fmt"
)

// approvals need the person's approval on the site as well.
var approvals = []Task{
	{ID: "buy-jacket", Kind: Approval,
		Statement: "Buy a Chore Jacket in Khaki, size L.",
		Check: func(ctx context.Context, w *World, a string, l *Log) error {
			if w.Approvals != 1 {
				return fmt.Errorf("the person approved %d times, want 1 (the order is over the agent's standing limit)", w.Approvals)
			}
			return orderOf(map[string]int{"JACK-KHA-L": 1})(ctx, w, a, l)
		},
		Script: func(ctx context.Context, s *Scout) (string, error) {
			if err := add(ctx, s, "Chore Jacket", "Khaki", "L", 1); err != nil {
				return "", err
			}
			return ordered(placeOrder(ctx, s, nil))
		}},
	{ID: "cancel-last-order", Kind: Approval,
		Statement: "Cancel my last order.",
		Setup:     placed(map[string]int{"SCAR-OAT-ONESIZE": 1}, false),
		Check:     lastOrderStatus("cancelled"),
		Script: func(ctx context.Context, s *Scout) (string, error) {
			page, _, _, err := lastOrder(ctx, s)
			if err != nil {
				return "", err
			}
			_, err = s.Call(ctx, page, "cancelOrder", nil)
			return "Cancelled.", err
		}},
	{ID: "order-new-address", Kind: Approval,
		Statement: "Buy a Merino Scarf in Forest and have it delivered to Ada Lovelace, 1 Queen Street, EC4N 1SR London, GB; save that address for my next orders.",
		Check: func(ctx context.Context, w *World, a string, l *Log) error {
			if err := orderOf(map[string]int{"SCAR-FOR-ONESIZE": 1})(ctx, w, a, l); err != nil {
				return err
			}
			o, err := w.lastOrder(ctx)
			if err != nil {
				return err
			}
			if o.Address == nil || o.Address.City != "London" || o.Address.Postcode != "EC4N 1SR" {
				return fmt.Errorf("the order goes to %+v", o.Address)
			}
			saved, err := w.Store.SavedAddress(ctx, w.UserID)
			if err != nil || saved == nil || saved.Name != "Ada Lovelace" {
				return fmt.Errorf("saved address %+v, %v", saved, err)
			}
			return nil
		},
		Script: func(ctx context.Context, s *Scout) (string, error) {
			if err := add(ctx, s, "Merino Scarf", "Forest", "One size", 1); err != nil {
				return "", err
			}
			to := address{Name: "Ada Lovelace", Street: "1 Queen Street", Postcode: "EC4N 1SR", City: "London", Country: "GB"}
			return ordered(placeOrder(ctx, s, map[string]any{"address": to, "saveAddress": true}))
		}},
	{ID: "revoke-token", Kind: Approval,
		Statement: "Revoke my API token labelled old-agent (my email is " + personEmail + ", my password " + personPassword + ").",
		Setup: func(ctx context.Context, w *World) error {
			_, err := w.Store.CreateToken(ctx, w.UserID, "old-agent")
			return err
		},
		Check: func(ctx context.Context, w *World, _ string, _ *Log) error {
			ts, err := w.Store.Tokens(ctx, w.UserID)
			if err != nil {
				return err
			}
			for _, t := range ts {
				if t.Label == "old-agent" {
					return fmt.Errorf("old-agent still works")
				}
			}
			if len(ts) != 1 {
				return fmt.Errorf("%d tokens left, want the agent's own", len(ts))
			}
			return nil
		},
		Script: func(ctx context.Context, s *Scout) (string, error) {
			if err := s.A.SignIn(ctx, personEmail, personPassword); err != nil {
				return "", err
			}
			page, err := s.PageOf(ctx, "revokeToken")
			if err != nil {
				page = "/account" // people-only: listed nowhere an agent reads; tokens live on the account page
			}
			g, err := s.Read(ctx, page)
			if err != nil {
				return "", err
			}
			var ts struct {
				Tokens []struct {
					ID    int64  `json:"id"`
					Label string `json:"label"`
				} `json:"tokens"`
			}
			if err := Entity(g, "tokens", &ts); err != nil {
				return "", err
			}
			for _, t := range ts.Tokens {
				if t.Label == "old-agent" {
					_, err := s.Call(ctx, page, "revokeToken", map[string]any{"id": t.ID})
					return "Revoked.", err
				}
			}
			return "", fmt.Errorf("no token labelled old-agent")
		}},
}

// unavailables cannot be done now: the right answer says why, without
// trying.
var unavailables = []Task{
	{ID: "sold-out", Kind: Unavailable,
		Statement: "Buy a Heavyweight Tee in Black, size XL. If that is not possible, tell me why.",
		Check:     notTried("addToCart", "sold out"),
		Script: func(ctx context.Context, s *Scout) (string, error) {
			_, _, p, err := findProduct(ctx, s, "Heavyweight Tee")
			if err != nil {
				return "", err
			}
			_, stock, err := variant(p, "Black", "XL")
			if err != nil {
				return "", err
			}
			if stock == 0 {
				return "Not possible: the Black XL is sold out.", nil
			}
			return "", fmt.Errorf("in stock after all")
		}},
	{ID: "order-empty-cart", Kind: Unavailable,
		Statement: "Place an order for what is in my cart. If that is not possible, tell me why.",
		Check:     notTried("placeOrder", "empty"),
		Script: func(ctx context.Context, s *Scout) (string, error) {
			page, err := s.PageOf(ctx, "placeOrder")
			if err != nil {
				return "", err
			}
			g, err := s.Seen(ctx, page)
			if err != nil {
				return "", err
			}
			return unavailable(g, "placeOrder")
		}},
	{ID: "cancel-shipped", Kind: Unavailable,
		Statement: "Cancel my last order. If that is not possible, tell me why.",
		Setup:     placed(map[string]int{"BELT-BRO-95": 1}, true),
		Check:     notTried("cancelOrder", "shipped"),
		Script: func(ctx context.Context, s *Scout) (string, error) {
			_, g, _, err := lastOrder(ctx, s)
			if err != nil {
				return "", err
			}
			return unavailable(g, "cancelOrder")
		}},
}
