package site

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/affordances-go/affordances/protocol"
)

// Admission: past what the site can serve, a call is refused at once,
// before its caller is looked up, rather than queued until every call is
// slow. Its body is read first, within Limits.BodyTimeout, so that a
// sender that dribbles it holds no slot.
// Options.Limits.MaxInFlight calls run at a time; up to Options.Limits.MaxQueued more
// wait Options.Limits.QueueWait for a slot; the others answer 503 unavailable
// with Retry-After, which clients retry. Reads (graphs, pages, the index)
// are not held: they are what a cache in front keeps serving.

// admission holds the site's slots for calls.
type admission struct {
	slots  chan struct{}
	queued atomic.Int64
	max    int64
	wait   time.Duration
	shed   atomic.Int64
}

// busyMessage is what a shed call's caller reads.
const busyMessage = "The site is busy and did not run this call. Try again in a moment."

func newAdmission(o Options) *admission {
	if o.Limits.MaxInFlight <= 0 {
		return nil
	}
	return &admission{slots: make(chan struct{}, o.Limits.MaxInFlight), max: int64(o.Limits.MaxQueued), wait: o.Limits.QueueWait}
}

// admit takes a slot for a call, waiting a short while in the queue when
// there is room in it; it returns the slot's release, or the 503.
func (a *admission) admit(ctx context.Context) (func(), *Error) {
	if a == nil {
		return func() {}, nil
	}
	release := func() { <-a.slots }
	select {
	case a.slots <- struct{}{}:
		return release, nil
	default:
	}
	if a.queued.Add(1) > a.max {
		a.queued.Add(-1)
		return nil, a.busy()
	}
	defer a.queued.Add(-1)
	t := time.NewTimer(a.wait)
	defer t.Stop()
	select {
	case a.slots <- struct{}{}:
		return release, nil
	case <-t.C:
	case <-ctx.Done():
	}
	return nil, a.busy()
}

func (a *admission) busy() *Error {
	a.shed.Add(1)
	e := newError(protocol.CodeUnavailable, busyMessage)
	e.status, e.retryAfter = 503, 1
	return e
}

// Shed is how many calls the site refused because it was busy
// (Options.Limits.MaxInFlight).
func (s *Site) Shed() int64 {
	if s.admission == nil {
		return 0
	}
	return s.admission.shed.Load()
}
