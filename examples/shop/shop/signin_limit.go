package shop

import (
	"sync"
	"time"
)

// Failed sign-ins are limited per account, beside the site's limit per
// caller and address, so that guessing one account's password from many
// addresses does not help: after maxFailures wrong passwords within
// failureWindow, the account's sign-in is refused until the oldest failure
// is that old.
const (
	maxFailures   = 5
	failureWindow = 15 * time.Minute
)

// failures counts recent failed sign-ins per account key (a hash of the
// email, so that the map holds no addresses in clear).
type failures struct {
	mu  sync.Mutex
	m   map[string][]time.Time
	now func() time.Time
}

func newFailures(now func() time.Time) *failures {
	if now == nil {
		now = time.Now
	}
	return &failures{m: map[string][]time.Time{}, now: now}
}

// blocked reports whether the account is locked out, and for how long.
func (f *failures) blocked(key string) (time.Duration, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	recent := f.recent(key)
	if len(recent) < maxFailures {
		return 0, false
	}
	return recent[0].Add(failureWindow).Sub(f.now()), true
}

// add records a failed sign-in.
func (f *failures) add(key string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.m) > 10_000 {
		for k := range f.m {
			if len(f.recent(k)) == 0 {
				delete(f.m, k)
			}
		}
	}
	f.m[key] = append(f.recent(key), f.now())
}

// reset forgets an account's failures after a successful sign-in.
func (f *failures) reset(key string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.m, key)
}

// recent returns the failures of key within the window; f.mu is held.
func (f *failures) recent(key string) []time.Time {
	cut := f.now().Add(-failureWindow)
	ts := f.m[key]
	i := 0
	for i < len(ts) && !ts[i].After(cut) {
		i++
	}
	if i == len(ts) {
		delete(f.m, key)
		return nil
	}
	f.m[key] = ts[i:]
	return ts[i:]
}
