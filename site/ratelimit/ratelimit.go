// Package ratelimit limits how often a caller may run an action.
//
// The server library asks a [Limiter] once per call, keyed by caller, route
// and action. [Memory] keeps the counters of one process in memory with the
// generic cell rate algorithm (GCRA): each key stores a single time, the
// answer is exact (a denied call learns precisely when it may try again),
// and a burst is allowed up to the limit's Burst. A Limiter shared by many
// instances (Redis) lives in its own package so this one has no
// dependencies.
package ratelimit

import (
	"context"
	"fmt"
	"math"
	"sync"
	"time"
)

// Limit is a sustained rate with a burst: Rate calls per Per, of which up
// to Burst may come at once. A zero Burst means 1.
type Limit struct {
	Rate  int
	Per   time.Duration
	Burst int
}

// PerMinute returns a limit of n calls a minute with a burst of burst.
func PerMinute(n, burst int) Limit { return Limit{Rate: n, Per: time.Minute, Burst: burst} }

// Valid reports whether the limit can be enforced.
func (l Limit) Valid() error {
	if l.Rate <= 0 || l.Per <= 0 || l.Burst < 0 {
		return fmt.Errorf("ratelimit: limit %d per %s, burst %d: rate and period must be positive", l.Rate, l.Per, l.Burst)
	}
	return nil
}

// interval is the time one call costs.
func (l Limit) interval() time.Duration { return l.Per / time.Duration(l.Rate) }

func (l Limit) burst() int {
	if l.Burst < 1 {
		return 1
	}
	return l.Burst
}

// Decision is a limiter's answer for one call.
type Decision struct {
	// Allowed reports whether the call may go ahead.
	Allowed bool
	// RetryAfter is how long a denied caller must wait before the same
	// call would be allowed.
	RetryAfter time.Duration
	// Degraded reports a decision made without the limiter's usual
	// count, because it failed (a [Degrading] limiter deciding with this
	// instance's share while the shared one is down). The site counts it
	// as a limiter fault (Site.LimiterFaults, the Observer's
	// LimiterFault), so that the alert on faults fires while the limit
	// is looser than usual.
	Degraded bool
}

// RetryAfterSeconds is RetryAfter rounded up to whole seconds, at least 1:
// the value of the Retry-After header. Waiting that long is always enough.
func (d Decision) RetryAfterSeconds() int {
	s := int(math.Ceil(d.RetryAfter.Seconds()))
	if s < 1 {
		s = 1
	}
	return s
}

// Limiter decides whether one more call under key fits the limit, and
// counts it when it does. An error means the limiter could not decide (its
// store is unreachable); the caller applies its failure policy.
type Limiter interface {
	Allow(ctx context.Context, key string, l Limit) (Decision, error)
}

// Memory is an in-process GCRA [Limiter]. The zero value is not ready: use
// [NewMemory].
type Memory struct {
	mu    sync.Mutex
	tat   map[string]time.Time // theoretical arrival time of the next call, per key
	now   func() time.Time
	calls int
}

// NewMemory returns an empty in-memory limiter. now is the clock; nil
// means time.Now (tests pass a fake one).
func NewMemory(now func() time.Time) *Memory {
	if now == nil {
		now = time.Now
	}
	return &Memory{tat: map[string]time.Time{}, now: now}
}

// sweepEvery is how many calls pass between sweeps of expired keys.
const sweepEvery = 4096

// Allow implements [Limiter]. Its counters are in memory, so its only
// error is an invalid limit.
func (m *Memory) Allow(_ context.Context, key string, l Limit) (Decision, error) {
	if err := l.Valid(); err != nil {
		return Decision{}, err
	}
	t := l.interval()
	tolerance := t * time.Duration(l.burst())

	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	m.calls++
	if m.calls%sweepEvery == 0 {
		m.sweep(now)
	}
	tat, ok := m.tat[key]
	if !ok || tat.Before(now) {
		tat = now
	}
	next := tat.Add(t)
	if wait := next.Sub(now) - tolerance; wait > 0 {
		return Decision{Allowed: false, RetryAfter: wait}, nil
	}
	m.tat[key] = next
	return Decision{Allowed: true}, nil
}

// sweep forgets keys whose budget is full again; they behave as new keys.
func (m *Memory) sweep(now time.Time) {
	for k, tat := range m.tat {
		if !tat.After(now) {
			delete(m.tat, k)
		}
	}
}

// Len returns how many keys the limiter currently tracks.
func (m *Memory) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.tat)
}
