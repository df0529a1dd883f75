package ratelimit_test

import (
	"context"
	"fmt"
	"time"

	"github.com/affordances-go/affordances/site/ratelimit"
)

// The in-memory limiter lets a burst through, then one call per interval,
// and says how long a refused caller must wait.
func ExampleNewMemory() {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	lim := ratelimit.NewMemory(func() time.Time { return now })
	perMinute := ratelimit.Limit{Rate: 6, Per: time.Minute, Burst: 2} // one every 10 s after a burst of 2

	for range 3 {
		d, _ := lim.Allow(context.Background(), "caller", perMinute)
		if d.Allowed {
			fmt.Println("allowed")
		} else {
			fmt.Println("refused: Retry-After", d.RetryAfterSeconds())
		}
	}
	now = now.Add(10 * time.Second)
	d, _ := lim.Allow(context.Background(), "caller", perMinute)
	fmt.Println("10 s later:", d.Allowed)
	// Output:
	// allowed
	// allowed
	// refused: Retry-After 10
	// 10 s later: true
}
