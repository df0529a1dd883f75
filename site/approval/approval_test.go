package approval_test

import (
	"errors"
	"testing"
	"time"

	"github.com/affordances-go/affordances/site/approval"
)

// An approval moves pending → approved → used, once; a pending or an
// approved one can be declined (withdrawn); nothing else moves.
func TestMemory_Transitions(t *testing.T) {
	ctx := t.Context()
	s := approval.NewMemory()
	s.Create(ctx, approval.Approval{ID: "a", State: approval.Pending, Expires: time.Now().Add(time.Minute)})
	if err := s.Use(ctx, "a"); !errors.Is(err, approval.ErrDecided) {
		t.Errorf("a pending approval was used: %v", err)
	}
	if err := s.Decide(ctx, "a", true); err != nil {
		t.Fatal(err)
	}
	if err := s.Decide(ctx, "a", true); !errors.Is(err, approval.ErrDecided) {
		t.Errorf("approved twice: %v", err)
	}
	if err := s.Use(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	if err := s.Use(ctx, "a"); !errors.Is(err, approval.ErrDecided) {
		t.Errorf("used twice: %v", err)
	}
	if err := s.Decide(ctx, "a", false); !errors.Is(err, approval.ErrDecided) {
		t.Errorf("a used approval was withdrawn: %v", err)
	}
	s.Create(ctx, approval.Approval{ID: "b", State: approval.Pending})
	s.Decide(ctx, "b", true)
	if err := s.Decide(ctx, "b", false); err != nil {
		t.Errorf("an approved approval could not be withdrawn: %v", err)
	}
	if a, _ := s.Get(ctx, "b"); a.State != approval.Declined {
		t.Errorf("withdrawn: %s", a.State)
	}
	if _, err := s.Get(ctx, "nope"); !errors.Is(err, approval.ErrNotFound) {
		t.Errorf("get of nothing: %v", err)
	}
}

// Memory lists an account's approvals that expire after a time, newest
// first, at most the limit, and never another account's.
func TestMemory_Recent(t *testing.T) {
	ctx := t.Context()
	s := approval.NewMemory()
	now := time.Now()
	for i, id := range []string{"old", "mid", "new"} {
		s.Create(ctx, approval.Approval{ID: id, Account: "ann", State: approval.Pending, Expires: now.Add(time.Duration(i) * time.Minute)})
	}
	s.Create(ctx, approval.Approval{ID: "bob's", Account: "bob", State: approval.Pending, Expires: now.Add(time.Hour)})
	var l approval.Lister = s
	got, err := l.Recent(ctx, "ann", now.Add(-time.Second), 2)
	if err != nil || len(got) != 2 || got[0].ID != "new" || got[1].ID != "mid" {
		t.Fatalf("the two newest of ann's: %+v %v", got, err)
	}
	if got, _ := l.Recent(ctx, "ann", now.Add(30*time.Second), 10); len(got) != 2 {
		t.Errorf("those expiring after 30 s: %d, want 2", len(got))
	}
}
