package shop

import (
	"testing"
	"time"
)

// Both sides of the sign-in policy, on a clock the test moves: a guesser
// on one address is stopped for that account; a guesser on many addresses
// slows the account for unknown browsers only; the owner elsewhere, or on
// a known browser, is never locked out.
func TestFailures_SlowGuessersWithoutLockingTheOwnerOut(t *testing.T) {
	now := time.Unix(1_000_000, 0)
	f := newFailures(func() time.Time { return now })
	for range pairFailures {
		f.add("acct", "10.0.0.1")
	}
	if wait, ok := f.allow("acct", "10.0.0.1", false); ok || wait <= 0 || wait > failureWindow {
		t.Fatalf("the guesser's address: ok %v, wait %v", ok, wait)
	}
	if _, ok := f.allow("acct", "10.0.0.2", false); !ok {
		t.Fatal("the owner, from another address, is locked out")
	}
	if _, ok := f.allow("other", "10.0.0.1", false); !ok {
		t.Fatal("another account is affected")
	}
	// Many addresses: the account is slowed to one try per slowEvery for
	// unknown browsers; a known browser is not slowed.
	for i := range accountFailures {
		f.add("acct", "192.0.2."+string(rune('a'+i)))
	}
	if _, ok := f.allow("acct", "10.0.0.3", false); !ok {
		t.Fatal("the first slowed try is refused")
	}
	if wait, ok := f.allow("acct", "10.0.0.4", false); ok || wait <= 0 || wait > slowEvery {
		t.Fatalf("a second unknown try within %v: ok %v, wait %v", slowEvery, ok, wait)
	}
	if _, ok := f.allow("acct", "10.0.0.4", true); !ok {
		t.Fatal("the owner's known browser is slowed")
	}
	now = now.Add(slowEvery)
	if _, ok := f.allow("acct", "10.0.0.4", false); !ok {
		t.Fatal("still refused after slowEvery")
	}
	now = now.Add(failureWindow)
	if _, ok := f.allow("acct", "10.0.0.1", false); !ok {
		t.Fatal("the guesser's address is still refused after the window")
	}
}
