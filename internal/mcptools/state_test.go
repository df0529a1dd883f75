package mcptools

import (
	"strings"
	"testing"
	"time"
)

// An approval state works once, for the call it was issued for, until it
// expires, and only with the server's secret.
func TestState_BoundSignedExpiringSingleUse(t *testing.T) {
	secret := []byte("0123456789abcdef0123456789abcdef")
	now := time.Unix(1_800_000_000, 0)
	call := ConfirmState{Caller: "bearer:u1", Action: "placeOrder", Page: "/checkout", Input: Digest([]byte(`{"note":"gift"}`))}
	issued := call
	issued.Expiry = now.Add(time.Minute).Unix()
	issued.Nonce = NewNonce()
	state := Sign(secret, issued)

	used := NewNonces()
	other := func(f func(*ConfirmState)) ConfirmState { c := call; f(&c); return c }
	for name, c := range map[string]struct {
		state  string
		want   ConfirmState
		secret []byte
		at     time.Time
	}{
		"another caller": {state, other(func(c *ConfirmState) { c.Caller = "bearer:u2" }), secret, now},
		"another action": {state, other(func(c *ConfirmState) { c.Action = "cancelOrder" }), secret, now},
		"another page":   {state, other(func(c *ConfirmState) { c.Page = "/orders/1" }), secret, now},
		"another input":  {state, other(func(c *ConfirmState) { c.Input = Digest([]byte(`{"note":"x"}`)) }), secret, now},
		"expired":        {state, call, secret, now.Add(2 * time.Minute)},
		"another secret": {state, call, []byte("another secret of 32 bytes......"), now},
		"altered":        {strings.Replace(state, state[3:4], string(rune(state[3]^1)), 1), call, secret, now},
		"unsigned":       {strings.Split(state, ".")[0], call, secret, now},
	} {
		if _, err := Verify(c.secret, used, c.state, c.want, c.at); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if _, err := Verify(secret, used, state, call, now); err != nil {
		t.Fatalf("the right call: %v", err)
	}
	if _, err := Verify(secret, used, state, call, now); err == nil {
		t.Error("a replayed state was accepted")
	}
}
