package site

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site/ratelimit"
)

// count counts one request under key against l with the site's limiter:
// nil when it may go on, else the rate_limited failure with its
// Retry-After. A limiter that fails lets the request through (it is
// counted in LimiterFaults and logged at most once a minute), or denies
// it with Limits.FailClosed; fault reports such a failure, or a decision
// the limiter made degraded (ratelimit.Decision.Degraded), both counted in
// LimiterFaults.
func (s *Site) count(ctx context.Context, key string, l ratelimit.Limit, route, action string) (e *Error, fault bool) {
	d, err := s.opts.Limits.Limiter.Allow(ctx, key, l)
	if err != nil {
		s.limiterFaults.Add(1)
		if n, ok := s.faultLog.due(time.Now()); ok {
			s.opts.Logger.WarnContext(ctx, "affordances: rate limiter failed", "route", route,
				"action", action, "fail_closed", s.opts.Limits.FailClosed, "faults_since_last_report", n, "err", err)
		}
		if !s.opts.Limits.FailClosed {
			return nil, true
		}
		d = ratelimit.Decision{RetryAfter: time.Second}
	}
	fault = err != nil || d.Degraded
	if d.Degraded {
		s.limiterFaults.Add(1) // decided without the usual count: as loud as a failure
	}
	if d.Allowed {
		return nil, fault
	}
	e = newError(protocol.CodeRateLimited, fmt.Sprintf("too many calls; try again in %d s", d.RetryAfterSeconds()))
	e.retryAfter = d.RetryAfterSeconds()
	return e, fault
}

// LimitByAddress counts a request of an extension's door against the
// site's limiter, keyed by the client's address (Security.ClientAddr)
// and door, so that what anyone may ask without an account (a sign-in
// challenge, a sign-up) stays bounded. It returns nil when the request
// may go on, else a rate_limited [*Error] with its Retry-After, for
// [Site.WriteError]. A failing limiter is handled as for calls
// (Limits.FailClosed).
func (s *Site) LimitByAddress(hr *http.Request, door string, l ratelimit.Limit) error {
	if e, _ := s.count(hr.Context(), "addr:"+s.clientAddr(hr)+"\x00"+door, l, door, ""); e != nil {
		return e
	}
	return nil
}

// Admission: past what the site can serve, a call is refused at once,
// before its caller is looked up, rather than queued until every call is
// slow. Its body is read first, within Limits.BodyTimeout, so that a
// sender that dribbles it holds no slot.
// Options.Limits.MaxInFlight calls run at a time; up to Options.Limits.MaxQueued more
// wait Options.Limits.QueueWait for a slot; the others answer 503 unavailable
// with Retry-After, which clients retry. Reads (graphs, pages, the index)
// are not held: they are what a cache in front keeps serving.

// busyMessage is what a shed call's caller reads.
const busyMessage = "The site is busy and did not run this call. Try again in a moment."

// admitCall takes a slot for a call (Options.Limits.MaxInFlight), or
// answers the 503 of a shed call.
func (s *Site) admitCall(ctx context.Context) (func(), *Error) {
	release, ok := s.admission.Admit(ctx)
	if ok {
		return release, nil
	}
	e := newError(protocol.CodeUnavailable, busyMessage)
	e.status, e.retryAfter = 503, 1
	return nil, e
}

// Shed is how many calls the site refused because it was busy
// (Options.Limits.MaxInFlight).
func (s *Site) Shed() int64 { return s.admission.Shed() }
