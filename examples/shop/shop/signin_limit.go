package shop

import (
	"sync"
	"time"
)

// Failed sign-ins are limited in two ways, so that guessing is slow and a
// stranger cannot lock the owner out (a lockout is a denial of service):
//
//   - per account and client address, strictly: after pairFailures wrong
//     passwords within failureWindow, that address may not try that
//     account again until the oldest failure is that old. A guesser on one
//     address is stopped; the owner, elsewhere, is not.
//   - per account, loosely: once the account has had accountFailures
//     failures within the window from everywhere (a guesser spread over
//     many addresses), attempts from browsers the owner never signed in
//     from are slowed to one per slowEvery for the whole account. A
//     browser that signed in to the account before (it holds a device
//     cookie, see knownDevice) is never slowed.
//
// The site's own limit per caller and per address (Action.LimitByAddress)
// applies on top: minting guest carts buys no extra guesses.
const (
	pairFailures    = 5
	accountFailures = 20
	failureWindow   = 15 * time.Minute
	slowEvery       = 30 * time.Second
)

// failures counts recent failed sign-ins per account key (a hash of the
// email, so that the maps hold no addresses in clear) and per account and
// address.
type failures struct {
	mu      sync.Mutex
	account map[string][]time.Time
	pair    map[string][]time.Time
	slowed  map[string]time.Time // account -> the last slowed attempt
	now     func() time.Time
}

func newFailures(now func() time.Time) *failures {
	if now == nil {
		now = time.Now
	}
	return &failures{account: map[string][]time.Time{}, pair: map[string][]time.Time{}, slowed: map[string]time.Time{}, now: now}
}

// allow reports whether a sign-in to account from addr may be tried now,
// and otherwise how long to wait. knownDevice is true for a browser that
// signed in to this account before. A slowed attempt that is allowed uses
// up the account's slot.
func (f *failures) allow(account, addr string, knownDevice bool) (time.Duration, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	now := f.now()
	if p := recent(f.pair, account+"\x00"+addr, now); len(p) >= pairFailures {
		return p[0].Add(failureWindow).Sub(now), false
	}
	if knownDevice || len(recent(f.account, account, now)) < accountFailures {
		return 0, true
	}
	if last, ok := f.slowed[account]; ok && now.Sub(last) < slowEvery {
		return slowEvery - now.Sub(last), false
	}
	f.slowed[account] = now
	return 0, true
}

// add records a failed sign-in.
func (f *failures) add(account, addr string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	now := f.now()
	if len(f.pair) > 10_000 || len(f.account) > 10_000 {
		for _, m := range []map[string][]time.Time{f.pair, f.account} {
			for k := range m {
				recent(m, k, now)
			}
		}
		for k, t := range f.slowed {
			if now.Sub(t) > slowEvery {
				delete(f.slowed, k)
			}
		}
	}
	key := account + "\x00" + addr
	f.pair[key] = append(recent(f.pair, key, now), now)
	f.account[account] = append(recent(f.account, account, now), now)
}

// reset forgets the failures of an address on an account after a
// successful sign-in from it; the account's own count stays, so that a
// guesser who also knows the owner's address gains nothing.
func (f *failures) reset(account, addr string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.pair, account+"\x00"+addr)
}

// recent returns the failures of key within the window, dropping the
// older ones; f.mu is held.
func recent(m map[string][]time.Time, key string, now time.Time) []time.Time {
	cut := now.Add(-failureWindow)
	ts := m[key]
	i := 0
	for i < len(ts) && !ts[i].After(cut) {
		i++
	}
	if i == len(ts) {
		delete(m, key)
		return nil
	}
	m[key] = ts[i:]
	return ts[i:]
}
