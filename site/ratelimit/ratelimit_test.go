package ratelimit_test

import (
	"context"
	"testing"
	"time"

	"github.com/affordances-go/affordances/site/ratelimit"
	"github.com/affordances-go/affordances/site/ratelimit/ratelimittest"
)

type clock struct{ t time.Time }

func (c *clock) now() time.Time      { return c.t }
func (c *clock) add(d time.Duration) { c.t = c.t.Add(d) }
func allow(m *ratelimit.Memory, key string, l ratelimit.Limit) ratelimit.Decision {
	d, err := m.Allow(context.Background(), key, l)
	if err != nil {
		panic(err)
	}
	return d
}

func TestGCRA_AllowsTheBurstThenSpacesCallsByTheInterval(t *testing.T) {
	c := &clock{t: time.Unix(1000, 0)}
	m := ratelimit.NewMemory(c.now)
	l := ratelimit.Limit{Rate: 6, Per: time.Minute, Burst: 3} // one call per 10 s, 3 at once
	for i := range 3 {
		if d := allow(m, "k", l); !d.Allowed {
			t.Fatalf("burst call %d denied", i)
		}
	}
	d := allow(m, "k", l)
	if d.Allowed || d.RetryAfter != 10*time.Second || d.RetryAfterSeconds() != 10 {
		t.Fatalf("4th call: %+v", d)
	}
	c.add(9 * time.Second)
	if d := allow(m, "k", l); d.Allowed || d.RetryAfter != time.Second {
		t.Fatalf("after 9 s: %+v", d)
	}
	c.add(time.Second)
	if d := allow(m, "k", l); !d.Allowed {
		t.Fatalf("after exactly Retry-After: %+v", d)
	}
	if d := allow(m, "other", l); !d.Allowed {
		t.Fatal("keys are independent")
	}
}

func TestRetryAfterSeconds_RoundsUp(t *testing.T) {
	for d, want := range map[time.Duration]int{0: 1, time.Millisecond: 1, time.Second: 1, 1001 * time.Millisecond: 2, 59*time.Second + 1: 60} {
		if got := (ratelimit.Decision{RetryAfter: d}).RetryAfterSeconds(); got != want {
			t.Errorf("%s: %d, want %d", d, got, want)
		}
	}
}

func TestMemory_ForgetsIdleKeys(t *testing.T) {
	c := &clock{t: time.Unix(1000, 0)}
	m := ratelimit.NewMemory(c.now)
	l := ratelimit.PerMinute(60, 1)
	for i := range 5000 {
		allow(m, string(rune('a'+i%26))+time.Duration(i).String(), l)
		c.add(time.Millisecond)
	}
	if m.Len() >= 5000 {
		t.Errorf("tracking %d keys; idle ones were never swept", m.Len())
	}
}

func TestLimit_RejectsNonsense(t *testing.T) {
	m := ratelimit.NewMemory(nil)
	for _, l := range []ratelimit.Limit{{}, {Rate: 1}, {Per: time.Second}, {Rate: -1, Per: time.Second}} {
		if _, err := m.Allow(context.Background(), "k", l); err == nil {
			t.Errorf("%+v accepted", l)
		}
	}
}

// The in-memory limiter passes the behaviour every limiter shares.
func TestMemory_SharedBehaviour(t *testing.T) {
	c := &ratelimittest.Clock{T: time.Unix(1000, 0)}
	ratelimittest.Run(t, ratelimit.NewMemory(c.Now), c.Sleep, 0, "")
}
