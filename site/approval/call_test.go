package approval

import (
	"testing"
	"time"
)

func TestRefusal(t *testing.T) {
	now := time.Now()
	call := Approval{Account: "ann", Credential: "tok1", Page: "/checkout", Action: "placeOrder",
		Input: Digest(map[string]any{"to": "home"}), Summary: "Order 2 items", Basis: "b1"}
	good := call
	good.ID, good.State, good.Expires = NewID(), Approved, now.Add(time.Minute)
	if why, pending := good.Refusal(call, now); why != "" || pending {
		t.Fatalf("the approval of this very call: %q %v", why, pending)
	}
	for name, change := range map[string]func(a *Approval){
		"another person":     func(a *Approval) { a.Account = "bob" },
		"another credential": func(a *Approval) { a.Credential = "tok2" },
		"another page":       func(a *Approval) { a.Page = "/cart" },
		"another action":     func(a *Approval) { a.Action = "cancel" },
		"another input":      func(a *Approval) { a.Input = Digest(map[string]any{"to": "work"}) },
		"expired":            func(a *Approval) { a.Expires = now.Add(-time.Second) },
		"declined":           func(a *Approval) { a.State = Declined },
		"used":               func(a *Approval) { a.State = Used },
		"summary changed":    func(a *Approval) { a.Summary = "Order 3 items" },
		"basis changed":      func(a *Approval) { a.Basis = "b2" },
	} {
		a := good
		change(&a)
		if why, pending := a.Refusal(call, now); why == "" || pending {
			t.Errorf("%s: %q, pending %v", name, why, pending)
		}
	}
	waiting := good
	waiting.State = Pending
	if why, pending := waiting.Refusal(call, now); why == "" || !pending {
		t.Errorf("pending: %q %v", why, pending)
	}
	if id, other := NewID(), NewID(); len(id) != 32 || id == other {
		t.Error("NewID")
	}
}
