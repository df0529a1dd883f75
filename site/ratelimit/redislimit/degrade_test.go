package redislimit_test

import (
	"context"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/affordances-go/affordances/internal/servers"
	"github.com/affordances-go/affordances/site/ratelimit"
	"github.com/affordances-go/affordances/site/ratelimit/redislimit"
)

// instance is one instance of a site: its own client and limiter on the
// shared Redis, degrading to its share of the limit.
func instance(t *testing.T, addr string, n int) *ratelimit.Degrading {
	o, err := redislimit.ClientOptions("redis://" + addr)
	if err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClient(o)
	t.Cleanup(func() { rdb.Close() })
	return ratelimit.NewDegrading(redislimit.New(rdb, nil), ratelimit.DegradeOptions{Instances: n, Retry: 500 * time.Millisecond,
		Logger: slog.New(slog.DiscardHandler)})
}

// With Redis stalling 200 ms of every 300 ms (an overloaded Redis), one
// caller sending for 3 s through two instances is held to its burst plus
// the instances' local shares and the sustained rate, where failing open
// let 97 calls through; the limit's counts never go away.
func TestDegrading_AStallingRedisStillLimits(t *testing.T) {
	srv := servers.StartRedis(t)
	a, b := instance(t, srv.Addr, 2), instance(t, srv.Addr, 2)
	lim := ratelimit.Limit{Rate: 120, Per: time.Minute, Burst: 30} // 2 a second after the burst
	ctx := context.Background()
	a.Allow(ctx, "warm", lim) // dial and load the script
	b.Allow(ctx, "warm", lim)

	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			srv.Pause()
			select {
			case <-stop:
				srv.Resume()
				return
			case <-time.After(200 * time.Millisecond):
			}
			srv.Resume()
			select {
			case <-stop:
				return
			case <-time.After(100 * time.Millisecond):
			}
		}
	})
	allowed, sent := 0, 0
	for end := time.Now().Add(3 * time.Second); time.Now().Before(end); sent++ {
		l := a
		if sent%2 == 1 {
			l = b
		}
		d, err := l.Allow(ctx, "caller", lim)
		if err != nil {
			t.Fatal(err)
		}
		if d.Allowed {
			allowed++
		}
		time.Sleep(5 * time.Millisecond)
	}
	close(stop)
	wg.Wait()
	// The shared count allows at most 30 + 2×3 s; each instance's share
	// 15 + 1×3 s more while it is on local counts.
	const bound = 30 + 6 + 2*(15+3)
	t.Logf("stalling Redis: %d of %d calls allowed through two instances (bound %d; failing open allowed 97); local decisions %d and %d",
		allowed, sent, bound, a.Local(), b.Local())
	if allowed > bound {
		t.Errorf("%d calls allowed, more than %d", allowed, bound)
	}
	if a.Local()+b.Local() == 0 {
		t.Error("no decision was local: the stall did not happen")
	}
}

// Redis killed: the instances decide on their shares; restarted, a fresh
// caller gets exactly its burst from the shared count again.
func TestDegrading_RedisKilledAndRestarted(t *testing.T) {
	srv := servers.StartRedis(t)
	a, b := instance(t, srv.Addr, 2), instance(t, srv.Addr, 2)
	lim := ratelimit.Limit{Rate: 30, Per: time.Hour, Burst: 30}
	ctx := context.Background()
	count := func(key string, n int) int {
		ok := 0
		for i := range n {
			l := a
			if i%2 == 1 {
				l = b
			}
			if d, err := l.Allow(ctx, key, lim); err != nil {
				t.Fatal(err)
			} else if d.Allowed {
				ok++
			}
		}
		return ok
	}
	srv.Stop()
	if got := count("down", 100); got != 30 {
		t.Errorf("with Redis down, two instances allowed %d of 100, want 15 each", got)
	}
	srv.Start()
	// Back within Retry plus the client's reconnection.
	deadline := time.Now().Add(20 * time.Second)
	for a.Local() > 0 && time.Now().Before(deadline) {
		before := a.Local() + b.Local()
		time.Sleep(600 * time.Millisecond)
		a.Allow(ctx, "probe", lim)
		b.Allow(ctx, "probe", lim)
		if a.Local()+b.Local() == before {
			break
		}
	}
	if got := count("fresh", 60); got != 30 {
		t.Errorf("a fresh caller after Redis came back: %d of 60 allowed, want exactly its burst of 30", got)
	}
}
