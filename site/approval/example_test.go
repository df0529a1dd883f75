package approval_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/affordances-go/affordances/site/approval"
)

// A site asks the person for an approval, the person approves it on the
// approval page, and the call that brings it back runs once: a second use
// is refused, and so is the same approval for another input.
func Example() {
	ctx := context.Background()
	store := approval.NewMemory()
	now := time.Now()

	call := approval.Approval{Account: "ann", Credential: "token-1", Page: "/checkout", Action: "placeOrder",
		Input: approval.Digest(map[string]any{"to": "home"}), Summary: "Order 2 items, 58.00 EUR"}
	asked := call
	asked.ID, asked.State, asked.Expires = approval.NewID(), approval.Pending, now.Add(10*time.Minute)
	store.Create(ctx, asked)

	a, _ := store.Get(ctx, asked.ID)
	why, pending := a.Refusal(call, now)
	fmt.Printf("before the person decides: %q, pending %v\n", why, pending)

	store.Decide(ctx, asked.ID, true) // the person approves, signed in, on the site
	a, _ = store.Get(ctx, asked.ID)
	why, _ = a.Refusal(call, now)
	fmt.Printf("approved: %q\n", why)
	fmt.Println("used:", store.Use(ctx, asked.ID) == nil)
	fmt.Println("used again:", errors.Is(store.Use(ctx, asked.ID), approval.ErrDecided))

	other := call
	other.Input = approval.Digest(map[string]any{"to": "work"})
	why, _ = a.Refusal(other, now)
	fmt.Println("another input:", why)
	// Output:
	// before the person decides: "Waiting for the person's approval.", pending true
	// approved: ""
	// used: true
	// used again: true
	// another input: The input differs from what the person approved.
}
