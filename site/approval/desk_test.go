package approval

import (
	"context"
	"errors"
	"testing"
	"time"
)

// failingReuser is a store whose Pending fails: the desk asks anew.
type failingReuser struct{ *Memory }

func (failingReuser) Pending(context.Context, Approval, time.Time) (Approval, error) {
	return Approval{}, errors.New("the database is down")
}

func TestDesk_AdmitsOnlyTheApprovedCallOnce(t *testing.T) {
	ctx := context.Background()
	now := time.Now()
	store := NewMemory()
	d := &Desk{Store: store, TTL: time.Minute}
	call := Approval{Account: "ann", Credential: "tok", Page: "/checkout", Action: "placeOrder",
		Input: Digest(map[string]any{}), Summary: "Order 2 items", Basis: "b1"}

	used, ask, err := d.Admit(ctx, "", false, call, now)
	if err != nil || used != nil || ask == nil || ask.Why != "" || ask.Waiting {
		t.Fatalf("a first call: %v %+v %v", used, ask, err)
	}
	first := ask.ID
	if _, again, _ := d.Admit(ctx, "", false, call, now); again.ID != first {
		t.Errorf("the same call asked again: a new approval %s, want %s", again.ID, first)
	}
	if _, ask, _ := d.Admit(ctx, first, true, call, now); ask == nil || !ask.Waiting || ask.ID != first {
		t.Errorf("undecided: %+v", ask)
	}
	store.Decide(ctx, first, true)
	if _, ask, _ := d.Admit(ctx, first, false, call, now); ask == nil {
		t.Error("an approved call without confirm ran")
	}
	used, ask, err = d.Admit(ctx, first, true, call, now)
	if err != nil || ask != nil || used == nil || used.Basis != "b1" {
		t.Fatalf("approved: %v %+v %v", used, ask, err)
	}
	if _, ask, _ := d.Admit(ctx, first, true, call, now); ask == nil || ask.Why != "That approval was used already." || ask.ID == first {
		t.Errorf("used twice: %+v", ask)
	}
	if _, ask, _ := d.Admit(ctx, "nope", true, call, now); ask == nil || ask.Why != "There is no such approval." {
		t.Errorf("unknown: %+v", ask)
	}
	a, _ := store.Get(ctx, first)
	if a.Expires.After(now.Add(time.Minute)) || a.State != Used {
		t.Errorf("stored %+v", a)
	}

	d = &Desk{Store: failingReuser{NewMemory()}, TTL: time.Minute}
	if ask, err := d.Ask(ctx, call, "", now); err != nil || ask.ID == "" {
		t.Errorf("a failing Reuser: %+v %v", ask, err)
	}
}
