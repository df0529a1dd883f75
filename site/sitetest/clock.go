package sitetest

import (
	"sync"
	"time"
)

// Clock is a fake clock for the site's rate limiter: time moves only when
// the test advances it, so limits are tested without sleeping.
//
//	clock := sitetest.NewClock()
//	s := site.New(site.Options{Limiter: ratelimit.NewMemory(clock.Now)})
//	...
//	clock.Advance(time.Minute)
type Clock struct {
	mu sync.Mutex
	t  time.Time
}

// NewClock returns a clock stopped at a fixed instant.
func NewClock() *Clock { return &Clock{t: time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)} }

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Advance moves the clock forward by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}
