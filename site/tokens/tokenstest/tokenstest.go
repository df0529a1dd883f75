// Package tokenstest checks that a [tokens.Store] keeps the contract the
// kit relies on. A store of the application's own, or the SQL store on
// another database, runs it in a test:
//
//	func TestMyStore(t *testing.T) { tokenstest.Run(t, func(t *testing.T) tokens.Store { return newStore(t) }) }
package tokenstest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/affordances-go/affordances/site/tokens"
)

// Run runs the contract's cases, each on a fresh, empty store.
func Run(t *testing.T, fresh func(t *testing.T) tokens.Store) {
	ctx := context.Background()
	now := time.Unix(1_790_000_000, 0)
	t.Run("create, look up, list", func(t *testing.T) {
		s := fresh(t)
		g := tokens.Grant{Actions: []string{"addToCart", "placeOrder"}, Expires: now.Add(48 * time.Hour),
			Standing: tokens.Standing{PerCall: 2500, PerDay: 4000}}
		a, err := s.Create(ctx, "user:1", "laptop “one”", "h1", g, now)
		if err != nil {
			t.Fatal(err)
		}
		b, err := s.Create(ctx, "user:1", "all", "h2", tokens.Grant{}, now)
		if err != nil {
			t.Fatal(err)
		}
		none, err := s.Create(ctx, "user:1", "none", "h3", tokens.Grant{Actions: []string{}}, now)
		if err != nil {
			t.Fatal(err)
		}
		if a.ID == 0 || a.ID == b.ID || b.ID == none.ID {
			t.Fatalf("ids %d %d %d: each token needs its own", a.ID, b.ID, none.ID)
		}
		got, err := s.Lookup(ctx, "h1")
		if err != nil {
			t.Fatal(err)
		}
		want := tokens.Token{ID: a.ID, Account: "user:1", Label: "laptop “one”", Grant: g, Created: now}
		if !same(got, want) {
			t.Fatalf("lookup:\n got %+v\nwant %+v", got, want)
		}
		if got, _ := s.Lookup(ctx, "h2"); got.Grant.Actions != nil {
			t.Fatalf("a grant of every action came back as %#v, not nil", got.Grant.Actions)
		}
		if got, _ := s.Lookup(ctx, "h3"); got.Grant.Actions == nil || len(got.Grant.Actions) != 0 {
			t.Fatalf("a grant of no action came back as %#v, not empty", got.Grant.Actions)
		}
		if _, err := s.Lookup(ctx, "nope"); !errors.Is(err, tokens.ErrNotFound) {
			t.Fatalf("unknown hash: %v, want ErrNotFound", err)
		}
		list, err := s.List(ctx, "user:1")
		if err != nil || len(list) != 3 || list[0].ID != a.ID || list[1].ID != b.ID {
			t.Fatalf("list: %+v %v", list, err)
		}
		if other, err := s.List(ctx, "user:2"); err != nil || other == nil || len(other) != 0 {
			t.Fatalf("another account's list: %#v %v (want an empty list)", other, err)
		}
	})
	t.Run("a hash is unique", func(t *testing.T) {
		s := fresh(t)
		if _, err := s.Create(ctx, "user:1", "a", "same", tokens.Grant{}, now); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Create(ctx, "user:2", "b", "same", tokens.Grant{}, now); err == nil {
			if got, _ := s.Lookup(ctx, "same"); got.Account != "user:1" {
				t.Fatal("a second token with the same hash took the first one's place")
			}
		}
	})
	t.Run("revoke", func(t *testing.T) {
		s := fresh(t)
		a, _ := s.Create(ctx, "user:1", "a", "h1", tokens.Grant{}, now)
		b, _ := s.Create(ctx, "user:1", "b", "h2", tokens.Grant{}, now)
		if err := s.Revoke(ctx, "user:2", a.ID, now); !errors.Is(err, tokens.ErrNotFound) {
			t.Fatalf("another account revoked it: %v", err)
		}
		if err := s.Revoke(ctx, "user:1", a.ID, now); err != nil {
			t.Fatal(err)
		}
		if err := s.Revoke(ctx, "user:1", a.ID, now); !errors.Is(err, tokens.ErrNotFound) {
			t.Fatalf("revoked twice: %v", err)
		}
		if _, err := s.Lookup(ctx, "h1"); !errors.Is(err, tokens.ErrNotFound) {
			t.Fatalf("a revoked token is still found: %v", err)
		}
		if list, _ := s.List(ctx, "user:1"); len(list) != 1 || list[0].ID != b.ID {
			t.Fatalf("list after revoking: %+v", list)
		}
	})
	t.Run("last use", func(t *testing.T) {
		s := fresh(t)
		a, _ := s.Create(ctx, "user:1", "a", "h1", tokens.Grant{}, now)
		if err := s.Used(ctx, a.ID, "ExampleBot/1.0", now.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		got, _ := s.Lookup(ctx, "h1")
		if !got.LastUsed.Equal(now.Add(time.Hour)) || got.LastAgent != "ExampleBot/1.0" {
			t.Fatalf("last use: %v by %q", got.LastUsed, got.LastAgent)
		}
	})
	t.Run("many at once", func(t *testing.T) {
		s := fresh(t)
		var wg sync.WaitGroup
		ids := make([]int64, 20)
		errs := make([]error, 20)
		for i := range ids {
			wg.Go(func() {
				tk, err := s.Create(ctx, "user:1", "t", fmt.Sprintf("h%d", i), tokens.Grant{}, now)
				ids[i], errs[i] = tk.ID, err
			})
		}
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			t.Fatal(err)
		}
		slices.Sort(ids)
		if len(slices.Compact(ids)) != 20 {
			t.Fatalf("20 tokens made at once got %d ids", len(slices.Compact(ids)))
		}
		if list, _ := s.List(ctx, "user:1"); len(list) != 20 {
			t.Fatalf("list: %d tokens, want 20", len(list))
		}
	})
}

// same compares tokens, times to the second.
func same(a, b tokens.Token) bool {
	return a.ID == b.ID && a.Account == b.Account && a.Label == b.Label && a.Created.Equal(b.Created) &&
		slices.Equal(a.Grant.Actions, b.Grant.Actions) && (a.Grant.Actions == nil) == (b.Grant.Actions == nil) &&
		a.Grant.Expires.Equal(b.Grant.Expires) && a.Grant.Standing == b.Grant.Standing &&
		a.LastUsed.Equal(b.LastUsed) && a.LastAgent == b.LastAgent
}
