package redislimit_test

import (
	"context"
	"errors"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/affordances-go/affordances/internal/servers"
	"github.com/affordances-go/affordances/site/ratelimit"
	"github.com/affordances-go/affordances/site/ratelimit/ratelimittest"
	"github.com/affordances-go/affordances/site/ratelimit/redislimit"
)

// The limiter on a real redis-server passes the behaviour every limiter
// shares, on Redis's clock.
func TestRedis_SharedBehaviour(t *testing.T) {
	srv := servers.StartRedis(t)
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr})
	defer rdb.Close()
	// The behaviour, not the timeout: a generous one, so that a loaded
	// machine (the race detector on 2 cores) does not fail a decision.
	ratelimittest.Run(t, redislimit.New(rdb, &redislimit.Options{Timeout: 5 * time.Second}), time.Sleep, 200*time.Millisecond, t.Name()+":")
}

// Two limiters on one Redis (two instances of a site) share one count.
func TestRedis_InstancesShareOneLimit(t *testing.T) {
	srv := servers.StartRedis(t)
	// The count, not the timeout: the first call dials and loads the
	// script, which on a loaded machine can take longer than the default.
	opts := &redislimit.Options{Timeout: 5 * time.Second}
	a := redislimit.New(redis.NewClient(&redis.Options{Addr: srv.Addr}), opts)
	b := redislimit.New(redis.NewClient(&redis.Options{Addr: srv.Addr}), opts)
	lim := ratelimit.Limit{Rate: 5, Per: time.Hour, Burst: 5}
	allowed := 0
	for i := range 10 {
		l := a
		if i%2 == 1 {
			l = b
		}
		d, err := l.Allow(context.Background(), "caller", lim)
		if err != nil {
			t.Fatal(err)
		}
		if d.Allowed {
			allowed++
		}
	}
	if allowed != 5 {
		t.Errorf("%d calls allowed across two instances, want 5", allowed)
	}
}

// A Redis that is gone is an error within the timeout, and the limiter
// works again when Redis is back, without a restart.
func TestRedis_FailsFastAndRecovers(t *testing.T) {
	srv := servers.StartRedis(t)
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr, MaxRetries: -1})
	defer rdb.Close()
	l := redislimit.New(rdb, &redislimit.Options{Timeout: 100 * time.Millisecond})
	lim := ratelimit.Limit{Rate: 100, Per: time.Second, Burst: 100}
	if _, err := l.Allow(context.Background(), "k", lim); err != nil {
		t.Fatal(err)
	}
	srv.Stop()
	start := time.Now()
	_, err := l.Allow(context.Background(), "k", lim)
	if err == nil || time.Since(start) > 2*time.Second {
		t.Fatalf("with Redis down: %v after %s", err, time.Since(start))
	}
	srv.Start()
	var last error
	for range 50 {
		if _, last = l.Allow(context.Background(), "k", lim); last == nil {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("the limiter did not recover: %v", errors.Unwrap(last))
}

// A hung Redis (it accepts and never answers, as one under SIGSTOP) costs
// a decision no more than its timeout, with a client built with go-redis's
// defaults (which ignore a context's deadline and retry), and calls past
// MaxPending fail at once rather than pile up.
func TestRedis_AHungServerCostsOnlyTheTimeout(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var conns []net.Conn
	var mu sync.Mutex
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c) // read nothing, answer nothing
			mu.Unlock()
		}
	}()
	defer func() {
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
	}()
	rdb := redis.NewClient(&redis.Options{Addr: ln.Addr().String()}) // go-redis's defaults
	defer rdb.Close()
	l := redislimit.New(rdb, &redislimit.Options{Timeout: 100 * time.Millisecond, MaxPending: 8})
	lim := ratelimit.Limit{Rate: 100, Per: time.Second, Burst: 100}
	var slowest time.Duration
	for range 20 {
		start := time.Now()
		if _, err := l.Allow(context.Background(), "k", lim); err == nil {
			t.Fatal("a hung server allowed a call")
		}
		slowest = max(slowest, time.Since(start))
	}
	// Generous against a loaded machine; without the bound it is ~5 s.
	if slowest > time.Second {
		t.Fatalf("a decision on a hung Redis took %v", slowest)
	}
	if _, err := l.Allow(context.Background(), "k", lim); !errors.Is(err, redislimit.ErrBusy) {
		t.Errorf("past MaxPending: %v", err)
	}
}

// instantRedis answers every script call at once, as a Redis on loopback
// can before the caller is even waiting for it.
type instantRedis struct{ redis.Scripter }

func (instantRedis) EvalSha(ctx context.Context, _ string, _ []string, _ ...any) *redis.Cmd {
	return redis.NewCmdResult([]any{int64(1), int64(0)}, nil)
}

// An answer that comes quickly is an answer: the decision must never be
// taken for a timeout because the call's context ended with it. It was:
// the script's goroutine cancelled the context right after answering, and
// the decision picked at random between the two, failing about half the
// fast calls (seen once in CI under the race detector).
func TestRedis_AFastAnswerIsNoTimeout(t *testing.T) {
	l := redislimit.New(instantRedis{}, &redislimit.Options{Timeout: time.Minute, MaxPending: 1 << 16})
	lim := ratelimit.Limit{Rate: 1000, Per: time.Second, Burst: 1000}
	// Many callers at once, so that the script's goroutine often runs
	// before its caller waits: the window of the bug.
	const callers, calls = 16, 2000
	var failed atomic.Int64
	var wg sync.WaitGroup
	for range callers {
		wg.Go(func() {
			for range calls {
				if _, err := l.Allow(context.Background(), "k", lim); err != nil {
					failed.Add(1)
				}
			}
		})
	}
	wg.Wait()
	if n := failed.Load(); n > 0 {
		t.Errorf("%d of %d answered decisions failed as timeouts", n, callers*calls)
	}
}
