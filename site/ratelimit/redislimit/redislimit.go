// Package redislimit is a ratelimit.Limiter on Redis, for a site served by
// several instances: they share one count per caller, route and action, so
// N instances allow the limit once, not N times.
//
// It runs the same generic cell rate algorithm as ratelimit.Memory, in one
// Lua script: one round trip, atomic, on Redis's clock (TIME) rather than
// each instance's, so instances with skewed clocks still share one limit.
// Each key holds one number, the theoretical arrival time of the next
// call, and expires once the key's budget is full again.
//
// The script is our own rather than github.com/go-redis/redis_rate: ours
// gives exactly ratelimit.Memory's semantics (Burst calls at once, the
// exact Retry-After of the next allowed call, a denied call costs nothing,
// a zero Burst is one), so that a site behaves the same on one instance or
// many, and the shared behaviour test runs unchanged against both; it is
// twenty lines.
package redislimit

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/affordances-go/affordances/site/ratelimit"
)

// gcra: KEYS[1] the key; ARGV[1] the interval of one call and ARGV[2] the
// tolerance of the burst, in microseconds. Returns {allowed, wait µs}.
var gcra = redis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local interval = tonumber(ARGV[1])
local tolerance = tonumber(ARGV[2])
local tat = tonumber(redis.call('GET', KEYS[1]) or '0')
if tat < now then tat = now end
local nxt = tat + interval
local wait = nxt - now - tolerance
if wait > 0 then return {0, wait} end
redis.call('SET', KEYS[1], string.format('%.0f', nxt), 'PX', math.ceil((nxt - now) / 1000) + 1)
return {1, 0}
`)

// Options configure the limiter.
type Options struct {
	// Prefix is put before every key. Default: "affordances:ratelimit:".
	Prefix string
	// Timeout bounds one decision, so that a hung Redis cannot stall a
	// request: past it the limiter fails, and the site applies its policy
	// (allow by default). Default: 100 ms. It holds whatever the client's
	// own settings (go-redis ignores a context's deadline unless
	// ContextTimeoutEnabled is set, and retries by default): the decision
	// is waited for no longer than Timeout; a script call still pending
	// then ends on the client's own timeouts, in the background.
	Timeout time.Duration
	// MaxPending bounds the script calls still pending in the background
	// after their decision timed out; past it, decisions fail at once
	// without calling Redis, until some end. Default: 256.
	MaxPending int
}

// Limiter is a ratelimit.Limiter on Redis.
type Limiter struct {
	rdb     redis.Scripter
	opts    Options
	pending chan struct{} // a slot per script call in flight
}

// New returns a limiter on a Redis client (a *redis.Client, a cluster or
// a ring). The client reconnects by itself after an outage.
func New(rdb redis.Scripter, opts *Options) *Limiter {
	o := Options{}
	if opts != nil {
		o = *opts
	}
	if o.Prefix == "" {
		o.Prefix = "affordances:ratelimit:"
	}
	if o.Timeout <= 0 {
		o.Timeout = 100 * time.Millisecond
	}
	if o.MaxPending <= 0 {
		o.MaxPending = 256
	}
	return &Limiter{rdb: rdb, opts: o, pending: make(chan struct{}, o.MaxPending)}
}

// ErrBusy is the failure of a decision while too many script calls are
// still pending on an unresponsive Redis.
var ErrBusy = errors.New("redislimit: too many calls to Redis pending")

// ClientOptions returns go-redis options for a limiter's own client, from
// a redis:// URL: the context's deadline obeyed, no retries (a retry
// cannot fit in a 100 ms decision), and dial, read and write timeouts of
// the decision's order, so that a hung server frees the connection soon.
func ClientOptions(url string) (*redis.Options, error) {
	o, err := redis.ParseURL(url)
	if err != nil {
		return nil, err
	}
	o.ContextTimeoutEnabled = true
	o.MaxRetries = -1
	o.DialTimeout = 500 * time.Millisecond
	o.ReadTimeout = 200 * time.Millisecond
	o.WriteTimeout = 200 * time.Millisecond
	o.PoolTimeout = 200 * time.Millisecond
	return o, nil
}

// Allow implements ratelimit.Limiter: one script call, bounded by the
// timeout.
func (l *Limiter) Allow(ctx context.Context, key string, lim ratelimit.Limit) (ratelimit.Decision, error) {
	if err := lim.Valid(); err != nil {
		return ratelimit.Decision{}, err
	}
	burst := lim.Burst
	if burst < 1 {
		burst = 1
	}
	interval := lim.Per / time.Duration(lim.Rate)
	select {
	case l.pending <- struct{}{}:
	default:
		return ratelimit.Decision{}, ErrBusy
	}
	// The decision cancels the script's context when it returns, never
	// the script's goroutine: a goroutine that cancelled after answering
	// made both cases below ready at once, and select took a fast answer
	// for a timeout about half the time.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), l.opts.Timeout)
	defer cancel()
	type answer struct {
		res []int64
		err error
	}
	done := make(chan answer, 1)
	go func() {
		defer func() { <-l.pending }()
		res, err := gcra.Run(ctx, l.rdb, []string{l.opts.Prefix + key}, interval.Microseconds(), (interval * time.Duration(burst)).Microseconds()).Int64Slice()
		done <- answer{res, err}
	}()
	var res []int64
	select {
	case a := <-done:
		if a.err != nil {
			return ratelimit.Decision{}, fmt.Errorf("redislimit: %w", a.err)
		}
		res = a.res
	case <-ctx.Done():
		return ratelimit.Decision{}, fmt.Errorf("redislimit: no answer within %v", l.opts.Timeout)
	}
	if len(res) != 2 {
		return ratelimit.Decision{}, fmt.Errorf("redislimit: the script answered %v", res)
	}
	if res[0] == 1 {
		return ratelimit.Decision{Allowed: true}, nil
	}
	return ratelimit.Decision{RetryAfter: time.Duration(res[1]) * time.Microsecond}, nil
}
