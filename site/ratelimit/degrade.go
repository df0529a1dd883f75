package ratelimit

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"
)

// Degrading is a [Limiter] that asks a shared limiter (Redis, for several
// instances) and, when that one cannot decide in time or is down, decides
// with its own in-memory limiter sized as this instance's share of the
// limit. A limit that fails over to local counts still holds: N instances
// each allowing 1/N of the burst allow a caller at most about one burst,
// where failing open would allow everything.
//
// While the shared limiter answers, the calls it allows are counted
// against the local share too: a Redis that flaps (answering, then not)
// would otherwise hand each instance its full share again at every switch,
// and N instances could let a caller through twice its burst. With the
// shadow count, one caller gets at most about its burst, one instance's
// share and what the limit earns meanwhile (redislimit's tests, a Redis
// stalling 200 ms of every 300 ms, burst 30: three instances let 55 and 63
// calls through without the shadow count, 46 to 48 with it, and up to 54
// on busy cores, against a bound of 52; with the local allowances charged
// back (below), 35, and two instances 34).
//
// The calls it allows on its local share are charged to the shared count
// once that answers again (settle), so that what the limit earned on the
// local counts is not earned a second time on the shared one.
//
// After a failure it stops asking the shared limiter for Retry (a Redis
// that is down or stalled would otherwise cost every call its timeout),
// then asks again; the first answer puts it back on the shared count. It
// logs each switch and counts the local decisions (Local).
//
// Fail-closed (deny while the shared limiter is down) is the site's
// policy for a plain shared limiter; Degrading never reports the shared
// limiter's errors, but marks each local decision Degraded, which the
// site counts as a limiter fault.
type Degrading struct {
	shared    Limiter
	local     *Memory
	instances int
	retry     time.Duration
	now       func() time.Time
	logger    *slog.Logger

	mu        sync.Mutex
	downUntil time.Time // while after now, decide locally without asking
	down      bool      // on local counts since the last failure
	local64   atomic.Int64
	failures  atomic.Int64
	owed      map[string]int // calls allowed locally, by key, not yet charged to the shared count
}

// maxOwed bounds the keys whose local allowances a Degrading limiter
// keeps to charge to the shared count: past it, a new caller's local
// allowances are not charged (its calls stay within its local share).
const maxOwed = 10000

// DegradeOptions configure a [Degrading] limiter.
type DegradeOptions struct {
	// Instances is how many instances share the limit: each one's local
	// share is 1/Instances of the rate and of the burst, rounded up.
	// Default: 1 (the whole limit: right for one instance, and an upper
	// bound for more).
	Instances int
	// Retry is how long the shared limiter is left alone after it failed.
	// Default: 1 s.
	Retry time.Duration
	// Logger logs the switches to local counts and back. Default:
	// slog.Default().
	Logger *slog.Logger
	// Now is the clock. Default: time.Now.
	Now func() time.Time
}

// NewDegrading returns a limiter that degrades from shared to local.
func NewDegrading(shared Limiter, o DegradeOptions) *Degrading {
	if o.Instances < 1 {
		o.Instances = 1
	}
	if o.Retry <= 0 {
		o.Retry = time.Second
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return &Degrading{shared: shared, local: NewMemory(o.Now), instances: o.Instances, retry: o.Retry, now: o.Now, logger: o.Logger}
}

// Share is one instance's share of a limit among n: the rate and the
// burst divided by n, rounded up, never below one call.
func Share(l Limit, n int) Limit {
	if n <= 1 {
		return l
	}
	div := func(v int) int { return max(1, (v+n-1)/n) }
	return Limit{Rate: div(l.Rate), Per: l.Per, Burst: div(l.burst())}
}

// Allow implements [Limiter].
func (d *Degrading) Allow(ctx context.Context, key string, l Limit) (Decision, error) {
	if err := l.Valid(); err != nil {
		return Decision{}, err
	}
	d.mu.Lock()
	skip := d.now().Before(d.downUntil)
	d.mu.Unlock()
	if !skip {
		err := d.settle(ctx, key, l)
		var dec Decision
		if err == nil {
			dec, err = d.shared.Allow(ctx, key, l)
		}
		if err == nil {
			if dec.Allowed {
				// Shadow the shared count: this instance's share spends
				// with the calls it lets through, so that on a switch to
				// local counts a caller finds its share about as spent as
				// its shared budget, not full again.
				d.local.Allow(ctx, key, Share(l, d.instances))
			}
			d.mu.Lock()
			back := d.down
			d.down = false
			d.mu.Unlock()
			if back {
				d.logger.Info("ratelimit: the shared limiter answers again; back on shared counts", "local decisions", d.local64.Load())
			}
			return dec, nil
		}
		d.failures.Add(1)
		d.mu.Lock()
		first := !d.down
		d.down = true
		d.downUntil = d.now().Add(d.retry)
		d.mu.Unlock()
		if first {
			d.logger.Warn("ratelimit: the shared limiter does not answer; deciding with this instance's share of each limit",
				"err", err, "instances", d.instances, "retry", d.retry)
		}
	}
	d.local64.Add(1)
	dec, err := d.local.Allow(ctx, key, Share(l, d.instances))
	dec.Degraded = true
	if err == nil && dec.Allowed {
		d.mu.Lock()
		if _, ok := d.owed[key]; ok || len(d.owed) < maxOwed {
			if d.owed == nil {
				d.owed = map[string]int{}
			}
			d.owed[key]++
		}
		d.mu.Unlock()
	}
	return dec, err
}

// settle charges the shared count with the calls this instance allowed
// for key on its local share while the shared limiter was away, once it
// answers again: the shared count then knows them, and a caller does not
// find its full shared budget waiting on top of what its shares let
// through. A charge that fails is kept for the next answer.
func (d *Degrading) settle(ctx context.Context, key string, l Limit) error {
	d.mu.Lock()
	n := d.owed[key]
	delete(d.owed, key)
	d.mu.Unlock()
	for ; n > 0; n-- {
		if _, err := d.shared.Allow(ctx, key, l); err != nil {
			d.mu.Lock()
			d.owed[key] += n
			d.mu.Unlock()
			return err
		}
	}
	return nil
}

// Local is how many decisions were made with local counts.
func (d *Degrading) Local() int64 { return d.local64.Load() }

// Failures is how many times the shared limiter failed to decide.
func (d *Degrading) Failures() int64 { return d.failures.Load() }
