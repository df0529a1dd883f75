package redislimit_test

import (
	"log"

	"github.com/redis/go-redis/v9"

	"github.com/affordances-go/affordances/site"
	"github.com/affordances-go/affordances/site/ratelimit/redislimit"
)

// Share the rate limit across a site's instances through Redis. The
// client gets the limiter's own options (no retries, short timeouts), so
// that a hung Redis costs a call at most the decision's 100 ms; the site
// then applies its policy (Options.LimiterFailClosed, allow by default).
// It needs a running Redis, so it is not run as a test.
func Example() {
	opts, err := redislimit.ClientOptions("redis://127.0.0.1:6379/0")
	if err != nil {
		log.Fatal(err)
	}
	limiter := redislimit.New(redis.NewClient(opts), nil)
	s := site.New(site.Options{Limits: site.LimitOptions{Limiter: limiter}})
	_ = s // register pages, then serve s
}
