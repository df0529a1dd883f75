package ratelimit_test

import (
	"context"
	"errors"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/affordances-go/affordances/site/ratelimit"
)

// flaky is a shared limiter that fails while down is set.
type flaky struct {
	shared *ratelimit.Memory
	down   atomic.Bool
	asked  atomic.Int64
}

func (f *flaky) Allow(ctx context.Context, key string, l ratelimit.Limit) (ratelimit.Decision, error) {
	f.asked.Add(1)
	if f.down.Load() {
		return ratelimit.Decision{}, errors.New("no answer within 100ms")
	}
	return f.shared.Allow(ctx, key, l)
}

// With the shared limiter down, each instance allows its share of the
// burst, not everything; it stops asking for Retry, and goes back to the
// shared count when that answers again.
func TestDegrading_LocalShareWhileSharedIsDown(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	clock := func() time.Time { return now }
	f := &flaky{shared: ratelimit.NewMemory(clock)}
	quiet := slog.New(slog.DiscardHandler)
	a := ratelimit.NewDegrading(f, ratelimit.DegradeOptions{Instances: 2, Now: clock, Logger: quiet})
	b := ratelimit.NewDegrading(f, ratelimit.DegradeOptions{Instances: 2, Now: clock, Logger: quiet})
	lim := ratelimit.Limit{Rate: 30, Per: time.Hour, Burst: 30}
	allowed := func(n int) int {
		ok := 0
		for i := range n {
			l := a
			if i%2 == 1 {
				l = b
			}
			d, err := l.Allow(context.Background(), "caller", lim)
			if err != nil {
				t.Fatal(err)
			}
			if d.Allowed {
				ok++
			}
		}
		return ok
	}
	f.down.Store(true)
	if got := allowed(100); got != 30 {
		t.Fatalf("two instances on local shares allowed %d of 100, want 15 each", got)
	}
	asked := f.asked.Load()
	if asked != 2 {
		t.Errorf("the shared limiter was asked %d times while down, want once per instance", asked)
	}
	if a.Local() != 50 || a.Failures() != 1 {
		t.Errorf("local decisions %d, failures %d", a.Local(), a.Failures())
	}
	// Back: a fresh caller gets exactly its burst from the shared count.
	f.down.Store(false)
	now = now.Add(2 * time.Second)
	ok := 0
	for range 40 {
		if d, _ := a.Allow(context.Background(), "fresh", lim); d.Allowed {
			ok++
		}
	}
	if ok != 30 {
		t.Errorf("a fresh caller after the shared limiter came back: %d allowed, want its burst of 30", ok)
	}
}

func TestShare(t *testing.T) {
	for _, c := range []struct {
		in   ratelimit.Limit
		n    int
		want ratelimit.Limit
	}{
		{ratelimit.Limit{Rate: 30, Per: time.Minute, Burst: 30}, 2, ratelimit.Limit{Rate: 15, Per: time.Minute, Burst: 15}},
		{ratelimit.Limit{Rate: 10, Per: time.Minute, Burst: 5}, 3, ratelimit.Limit{Rate: 4, Per: time.Minute, Burst: 2}},
		{ratelimit.Limit{Rate: 1, Per: time.Minute}, 4, ratelimit.Limit{Rate: 1, Per: time.Minute, Burst: 1}},
		{ratelimit.Limit{Rate: 7, Per: time.Second, Burst: 7}, 1, ratelimit.Limit{Rate: 7, Per: time.Second, Burst: 7}},
	} {
		if got := ratelimit.Share(c.in, c.n); got != c.want {
			t.Errorf("Share(%+v, %d) = %+v, want %+v", c.in, c.n, got, c.want)
		}
	}
}

// A shared limiter that flaps does not hand each instance its whole share
// again: a caller who spent its burst on the shared count finds its local
// shares spent too when the shared limiter stops answering.
func TestDegrading_AFlappingSharedLimiterGivesNoSecondBurst(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	clock := func() time.Time { return now }
	f := &flaky{shared: ratelimit.NewMemory(clock)}
	quiet := slog.New(slog.DiscardHandler)
	inst := []*ratelimit.Degrading{
		ratelimit.NewDegrading(f, ratelimit.DegradeOptions{Instances: 3, Now: clock, Logger: quiet}),
		ratelimit.NewDegrading(f, ratelimit.DegradeOptions{Instances: 3, Now: clock, Logger: quiet}),
		ratelimit.NewDegrading(f, ratelimit.DegradeOptions{Instances: 3, Now: clock, Logger: quiet}),
	}
	lim := ratelimit.Limit{Rate: 30, Per: time.Hour, Burst: 30}
	allowed := func(n int) int {
		ok := 0
		for i := range n {
			if d, _ := inst[i%3].Allow(context.Background(), "caller", lim); d.Allowed {
				ok++
			}
		}
		return ok
	}
	if got := allowed(60); got != 30 {
		t.Fatalf("on the shared count: %d of 60 allowed, want the burst of 30", got)
	}
	f.down.Store(true)
	if got := allowed(60); got != 0 {
		t.Errorf("the shared limiter gone after the burst was spent: %d more allowed, want 0", got)
	}
	// A caller the instances never saw still gets its shares.
	fresh := 0
	for i := range 60 {
		if d, _ := inst[i%3].Allow(context.Background(), "fresh", lim); d.Allowed {
			fresh++
		}
	}
	if fresh != 30 {
		t.Errorf("a fresh caller with the shared limiter down: %d allowed, want 3 shares of 10", fresh)
	}
}

// What an instance let through on its local share while the shared
// limiter was away is charged to the shared count when it answers again:
// the caller does not find a second burst waiting there.
func TestDegrading_LocalAllowancesAreChargedToTheSharedCount(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	clock := func() time.Time { return now }
	f := &flaky{shared: ratelimit.NewMemory(clock)}
	d := ratelimit.NewDegrading(f, ratelimit.DegradeOptions{Instances: 1, Now: clock, Retry: time.Second, Logger: slog.New(slog.DiscardHandler)})
	lim := ratelimit.Limit{Rate: 30, Per: time.Hour, Burst: 30}
	allowed := func(n int) int {
		ok := 0
		for range n {
			if dec, _ := d.Allow(context.Background(), "caller", lim); dec.Allowed {
				ok++
			}
		}
		return ok
	}
	f.down.Store(true)
	if got := allowed(20); got != 20 {
		t.Fatalf("on the local share: %d of 20", got)
	}
	f.down.Store(false)
	now = now.Add(2 * time.Second) // past Retry: the shared limiter is asked again
	if got := allowed(30); got != 10 {
		t.Errorf("back on the shared count: %d more allowed, want the 10 left of the burst", got)
	}
}
