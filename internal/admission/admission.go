// Package admission holds the slots of the calls a site runs at once.
// Past what the site can serve, a call is refused at once rather than
// queued until every call is slow: a few may wait a short while for a
// slot (a burst), the others are shed. Package site answers a shed call
// 503 with Retry-After, before its caller is looked up.
package admission

import (
	"context"
	"sync/atomic"
	"time"
)

// Slots admits up to its size of calls at a time. A nil *Slots admits
// every call.
type Slots struct {
	slots  chan struct{}
	queued atomic.Int64
	max    int64
	wait   time.Duration
	shed   atomic.Int64
}

// New returns slots for inFlight calls at a time, of which up to queued
// more may wait up to wait for one; nil (no limit) when inFlight is not
// positive.
func New(inFlight, queued int, wait time.Duration) *Slots {
	if inFlight <= 0 {
		return nil
	}
	return &Slots{slots: make(chan struct{}, inFlight), max: int64(queued), wait: wait}
}

// Admit takes a slot, waiting in the queue when there is room in it, and
// returns the slot's release; ok is false when the call is shed (the
// queue was full, the wait ran out or ctx ended).
func (a *Slots) Admit(ctx context.Context) (release func(), ok bool) {
	if a == nil {
		return func() {}, true
	}
	release = func() { <-a.slots }
	select {
	case a.slots <- struct{}{}:
		return release, true
	default:
	}
	if a.queued.Add(1) > a.max {
		a.queued.Add(-1)
		a.shed.Add(1)
		return nil, false
	}
	defer a.queued.Add(-1)
	t := time.NewTimer(a.wait)
	defer t.Stop()
	select {
	case a.slots <- struct{}{}:
		return release, true
	case <-t.C:
	case <-ctx.Done():
	}
	a.shed.Add(1)
	return nil, false
}

// Shed is how many calls were refused.
func (a *Slots) Shed() int64 {
	if a == nil {
		return 0
	}
	return a.shed.Load()
}
