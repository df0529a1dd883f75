package redislimit_test

import (
	"context"
	"fmt"
	"log/slog"
	"os/exec"
	"runtime"
	"sync"
	"sync/atomic"
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
// caller sending for 3 s through two or three instances is held to its
// burst, one instance's share and what the limit earns meanwhile, where
// failing open let 97 calls through; the limit's counts never go away.
func TestDegrading_AStallingRedisStillLimits(t *testing.T) {
	for _, n := range []int{2, 3} {
		t.Run(fmt.Sprintf("%d instances", n), func(t *testing.T) { stallingRedis(t, n) })
	}
}

func stallingRedis(t *testing.T, n int) {
	srv := servers.StartRedis(t)
	inst := make([]*ratelimit.Degrading, n)
	lim := ratelimit.Limit{Rate: 120, Per: time.Minute, Burst: 30} // 2 a second after the burst
	ctx := context.Background()
	for i := range inst {
		inst[i] = instance(t, srv.Addr, n)
		inst[i].Allow(ctx, "warm", lim) // dial and load the script
	}

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
		d, err := inst[sent%n].Allow(ctx, "caller", lim)
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
	// The burst, one instance's share, and what the limit earns in 3 s
	// on the shared count and, at most as much again, on the local ones.
	share := (lim.Burst + n - 1) / n
	bound := lim.Burst + share + 2*6
	local := int64(0)
	for _, in := range inst {
		local += in.Local()
	}
	t.Logf("stalling Redis: %d of %d calls allowed through %d instances (bound %d: burst %d, share %d, earned 12; failing open allowed 97 through two); %d local decisions",
		allowed, sent, n, bound, lim.Burst, share, local)
	if allowed > bound {
		t.Errorf("%d calls allowed, more than %d", allowed, bound)
	}
	if local == 0 {
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

// Under CPU load (a busy neighbour on every core and eight callers at
// once), two and three instances on one Redis hold one caller to its
// burst, one instance's share and what the limit earns meanwhile, where
// the limiter that failed open let more than its burst through on a busy
// machine.
func TestDegrading_UnderCPULoad(t *testing.T) {
	for _, n := range []int{2, 3} {
		t.Run(fmt.Sprintf("%d instances", n), func(t *testing.T) {
			srv := servers.StartRedis(t)
			busyNeighbour(t)
			inst := make([]*ratelimit.Degrading, n)
			lim := ratelimit.Limit{Rate: 120, Per: time.Minute, Burst: 30} // 2 a second after the burst
			ctx := context.Background()
			for i := range inst {
				inst[i] = instance(t, srv.Addr, n)
			}
			// No warm-up: the first decisions dial Redis and load the
			// script, as right after the instances start.
			var allowed, sent atomic.Int64
			start := time.Now()
			end := start.Add(2 * time.Second)
			var wg sync.WaitGroup
			for w := range 8 {
				wg.Go(func() {
					for i := w; time.Now().Before(end); i += 8 {
						d, err := inst[i%n].Allow(ctx, "caller", lim)
						if err != nil {
							t.Error(err)
							return
						}
						sent.Add(1)
						if d.Allowed {
							allowed.Add(1)
						}
						time.Sleep(time.Millisecond)
					}
				})
			}
			wg.Wait()
			elapsed := time.Since(start)
			share := (lim.Burst + n - 1) / n
			// The burst, one share, and what the limit earns while the
			// callers send (on the shared count and, at most as much
			// again, on the local ones).
			earned := int(2 * 2 * elapsed.Seconds())
			bound := lim.Burst + share + earned
			local := int64(0)
			for _, in := range inst {
				local += in.Local()
			}
			t.Logf("under CPU load: %d of %d calls allowed through %d instances in %s (bound %d: burst %d, share %d, earned %d); %d local decisions",
				allowed.Load(), sent.Load(), n, elapsed.Round(time.Millisecond), bound, lim.Burst, share, earned, local)
			if int(allowed.Load()) > bound {
				t.Errorf("%d calls allowed, more than %d", allowed.Load(), bound)
			}
		})
	}
}

// busyNeighbour keeps every core busy with another process until the
// test ends.
func busyNeighbour(t *testing.T) {
	for range runtime.NumCPU() {
		cmd := exec.Command("sh", "-c", "while :; do :; done")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			cmd.Process.Kill()
			cmd.Wait()
		})
	}
}
