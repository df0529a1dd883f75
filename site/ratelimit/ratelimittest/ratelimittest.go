// Package ratelimittest is the behaviour every ratelimit.Limiter of this
// project shares, as a test any implementation runs: the in-memory GCRA on
// a fake clock, the Redis limiter on Redis's own clock.
package ratelimittest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/affordances-go/affordances/site/ratelimit"
)

// Run checks l. sleep waits d on the limiter's clock (a fake clock
// advances; a real one sleeps); slack is how far a real clock may move
// while the test runs (0 for a fake one). Keys are prefixed with prefix,
// so that runs do not share counters.
func Run(t *testing.T, l ratelimit.Limiter, sleep func(time.Duration), slack time.Duration, prefix string) {
	t.Helper()
	ctx := context.Background()
	allow := func(key string, lim ratelimit.Limit) ratelimit.Decision {
		t.Helper()
		d, err := l.Allow(ctx, prefix+key, lim)
		if err != nil {
			t.Fatalf("Allow(%s): %v", key, err)
		}
		return d
	}
	near := func(got, want time.Duration) bool { return got <= want && got >= want-slack-time.Millisecond }

	// One call per second, three at once.
	lim := ratelimit.Limit{Rate: 60, Per: time.Minute, Burst: 3}
	for i := range 3 {
		if d := allow("burst", lim); !d.Allowed {
			t.Fatalf("burst call %d denied: %+v", i+1, d)
		}
	}
	d := allow("burst", lim)
	if d.Allowed || !near(d.RetryAfter, time.Second) || d.RetryAfterSeconds() != 1 {
		t.Fatalf("the call after the burst: %+v, want denied with a Retry-After of 1 s", d)
	}
	if d := allow("other", lim); !d.Allowed {
		t.Fatal("keys are not independent")
	}
	sleep(d.RetryAfter)
	if d := allow("burst", lim); !d.Allowed {
		t.Fatalf("after waiting Retry-After: %+v", d)
	}
	if d := allow("burst", lim); d.Allowed {
		t.Fatalf("the budget did not refill one call only: %+v", d)
	}

	// A zero Burst is one call at a time; a denied call costs nothing.
	single := ratelimit.Limit{Rate: 1, Per: time.Hour}
	if d := allow("single", single); !d.Allowed {
		t.Fatal("the first call of a burst of 0 (1)")
	}
	for range 3 {
		if d := allow("single", single); d.Allowed || !near(d.RetryAfter, time.Hour) || d.RetryAfterSeconds() != 3600 {
			t.Fatalf("a second call within the hour: %+v", d)
		}
	}

	// Invalid limits are errors, not decisions.
	for _, bad := range []ratelimit.Limit{{}, {Rate: 1}, {Rate: -1, Per: time.Second}} {
		if _, err := l.Allow(ctx, prefix+"bad", bad); err == nil {
			t.Errorf("limit %+v: no error", bad)
		}
	}
}

// Clock is a fake clock for Run with an in-memory limiter.
type Clock struct{ T time.Time }

// Now returns the clock's time.
func (c *Clock) Now() time.Time { return c.T }

// Sleep advances the clock.
func (c *Clock) Sleep(d time.Duration) { c.T = c.T.Add(d) }

// String names the clock in failures.
func (c *Clock) String() string { return fmt.Sprint(c.T) }
