package conformance

// The ratelimit.* checks: 429 with a Retry-After in seconds.

import (
	"context"
	"net/http"
	"strconv"

	"github.com/affordances-go/affordances/protocol"
)

func checkRetryAfter(ctx context.Context, e *Env) Outcome {
	if !e.cfg.Burst {
		return skip("sends a burst of calls: opt in with --burst")
	}
	p, a := e.callable(nil)
	if p == nil {
		return skip("no action with an object input that this checker may call")
	}
	for i := 0; i < e.cfg.BurstLimit; i++ {
		res, err := e.post(ctx, p.url, invalidCall(a.Name))
		if err != nil {
			return fail("%v", err)
		}
		if res.status != http.StatusTooManyRequests {
			continue
		}
		if ok, msg := res.failedWith(http.StatusTooManyRequests, protocol.CodeRateLimited); !ok {
			return fail("%s", msg)
		}
		s, err := strconv.Atoi(res.header.Get("Retry-After"))
		if err != nil || s < 1 {
			return fail("Retry-After is %q, not a number of seconds", res.header.Get("Retry-After"))
		}
		return pass("429 after %d calls, Retry-After: %d", i+1, s)
	}
	return skip("no limit was reached in %d calls", e.cfg.BurstLimit)
}
