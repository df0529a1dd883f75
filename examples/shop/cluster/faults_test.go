package cluster_test

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/affordances-go/affordances/client"

	"github.com/affordances-go/affordances/examples/shop/shop"
	"github.com/affordances-go/affordances/internal/syncbuf"
	"github.com/affordances-go/affordances/site/ratelimit"
)

// The phases of TestCluster under a fault: Redis gone or hung, a cut, PostgreSQL restarted.

// redisOutage is the phase "4 redis outage" of TestCluster.
func redisOutage(t *testing.T, c *cluster) {
	body := `{"action":"addToCart","input":{"sku":"CAP-NAV-ONESIZE"}}`
	tok := c.token
	faultsBefore := c.instances[0].app.Site().LimiterFaults() + c.instances[1].app.Site().LimiterFaults()
	scrapedBefore := scrapeMetric(t, c.instances[0], "affordances_limiter_faults_total") + scrapeMetric(t, c.instances[1], "affordances_limiter_faults_total")
	c.redis.Stop()
	ok, fivexx := 0, 0 // ok: the limiter let the call through (200, or 409 for a full cart line)
	for i := range 20 {
		code, _, _ := call(t, c.instances[i%2].url, tok, "/products/baseball-cap", body)
		if code == 200 || code == 409 {
			ok++
		}
		if code >= 500 || code == 0 {
			fivexx++
		}
	}
	faults := c.instances[0].app.Site().LimiterFaults() + c.instances[1].app.Site().LimiterFaults() - faultsBefore
	scraped := scrapeMetric(t, c.instances[0], "affordances_limiter_faults_total") + scrapeMetric(t, c.instances[1], "affordances_limiter_faults_total") - scrapedBefore
	closedCode, _, _ := call(t, c.closed.url, tok, "/products/baseball-cap", body)
	figure("redis down: 20 calls fail-open, %d let through, %d 5xx, %d faults counted (%.0f in /metrics); fail-closed answers %d", ok, fivexx, faults, scraped, closedCode)
	if ok != 20 || fivexx != 0 || faults < 20 || int64(scraped) != faults || closedCode != 429 {
		t.Errorf("ok %d, 5xx %d, faults %d (metrics %.0f), fail-closed %d", ok, fivexx, faults, scraped, closedCode)
	}
	c.redis.Start()
	limited := 0
	for i := range 10 {
		if code, _, _ := call(t, c.instances[i%2].url, tok, "/products/baseball-cap", body); code == 429 {
			limited++
		}
	}
	figure("redis back: 10 calls, %d limited again (no restart of the instances)", limited)
	if limited == 0 {
		t.Error("the limit does not apply after Redis came back")
	}
}

// hungRedis is the phase "6 a hung redis" of TestCluster.
func hungRedis(t *testing.T, c *cluster) {
	// Redis stops answering (SIGSTOP) but keeps its connections: each
	// decision waits its 100 ms timeout, no more, and calls go on.
	body := `{"action":"addToCart","input":{"sku":"CAP-NAV-ONESIZE"}}`
	// Buyers are made before Redis hangs: only the calls are timed.
	timed := func(tokens []string) (took []time.Duration, fivexx int) {
		for i, tok := range tokens {
			start := time.Now()
			code, _, _ := call(t, c.instances[i%2].url, tok, "/products/baseball-cap", body)
			took = append(took, time.Since(start))
			if code >= 500 || code == 0 {
				fivexx++
			}
		}
		slices.Sort(took)
		return took, fivexx
	}
	hung := func(prefix string) ([]time.Duration, int) {
		tokens := newBuyers(t, c, prefix, 40)
		c.redis.Pause()
		defer c.redis.Resume()
		return timed(tokens)
	}
	took, fivexx := hung("hung")
	// The same calls with Redis answering, right after: what this
	// machine's load costs every call, hung Redis or not (CI runs
	// other packages' tests beside this one on two cores).
	healthy, _ := timed(newBuyers(t, c, "healthy", 40))
	p99 := func(d []time.Duration) time.Duration { return d[len(d)*99/100] }
	// The hang may cost a call its 100 ms timeout, no more: within
	// 250 ms, or on a loaded machine within 150 ms of the same calls'
	// time with Redis answering. Of 40 calls the p99 is the slowest,
	// so one call the shared machine paused fails it: a round that
	// misses the bound is measured once more, and both must miss it to
	// fail (a hang that blocks calls, as before the fix, misses it in
	// every round).
	tooSlow := func(took []time.Duration) bool {
		return p99(took) > 250*time.Millisecond && p99(took) > p99(healthy)+150*time.Millisecond
	}
	rounds := 1
	if tooSlow(took) && fivexx == 0 {
		first := p99(took)
		took, fivexx = hung("hung-again")
		rounds = 2
		figure("hung redis: the first round's p99 was %v; measured again", first.Round(time.Millisecond))
	}
	figure("hung redis: %d calls while Redis answered nothing: p50 %v, p99 %v, %d 5xx (Redis answering: p99 %v)",
		len(took), took[len(took)/2].Round(time.Millisecond), p99(took).Round(time.Millisecond), fivexx, p99(healthy).Round(time.Millisecond))
	if tooSlow(took) || fivexx != 0 {
		t.Errorf("p99 %v in %d rounds (with Redis answering %v), %d 5xx", p99(took), rounds, p99(healthy), fivexx)
	}
}

// retriesAfterACut is the phase "7 retries after a cut, with idempotency keys" of TestCluster.
func retriesAfterACut(t *testing.T, c *cluster) {
	// Each buyer adds one cap and orders it; every call is cut at a
	// random moment (a dropped connection, the answer lost), then sent
	// again with the same key to the other instance until it answers.
	ctx := context.Background()
	const tries = 200
	if _, err := c.instances[0].db.ExecContext(ctx, `UPDATE skus SET stock = 100000 WHERE sku = 'CAP-NAV-ONESIZE'`); err != nil {
		t.Fatal(err)
	}
	tokens := newBuyers(t, c, "retry", tries)
	var cut, retried atomic.Int64
	send := func(i int, tok, path, body, key string) {
		// The first attempt, cut after 0–15 ms.
		cctx, cancel := context.WithTimeout(ctx, time.Duration(rand.IntN(15000))*time.Microsecond)
		if code, _, _ := callKey(cctx, c.instances[i%2].url, tok, path, body, key); code == 0 {
			cut.Add(1)
		}
		cancel()
		for n := range 100 {
			code, ecode, ra := callKey(ctx, c.instances[(i+n+1)%2].url, tok, path, body, key)
			retried.Add(1)
			if code == 200 {
				return
			}
			switch {
			case code == 429:
				wait, _ := strconv.Atoi(ra) // the retries spent the buyer's burst
				time.Sleep(time.Duration(max(wait, 1)) * time.Second)
			case code == 409 && ecode == "unavailable", code == 0:
				time.Sleep(20 * time.Millisecond) // the first still runs
			default:
				t.Errorf("buyer %d %s: %d %s", i, path, code, ecode)
				return
			}
		}
		t.Errorf("buyer %d %s: never answered", i, path)
	}
	var wg sync.WaitGroup
	for i, tok := range tokens {
		wg.Go(func() {
			send(i, tok, "/products/baseball-cap", `{"action":"addToCart","input":{"sku":"CAP-NAV-ONESIZE"}}`, fmt.Sprintf("add-%d", i))
			send(i, tok, "/checkout", `{"action":"placeOrder","confirm":true}`, fmt.Sprintf("order-%d", i))
		})
		if i%8 == 7 {
			wg.Wait() // eight buyers at a time
		}
	}
	wg.Wait()
	var orders, units, dupes int
	rows, err := c.instances[0].db.QueryContext(ctx, `SELECT o.user_id, count(DISTINCT o.id), coalesce(sum(i.qty), 0) FROM orders o JOIN order_items i ON i.order_id = o.id
		JOIN users u ON u.id = o.user_id WHERE u.email LIKE 'retry%' GROUP BY o.user_id`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var uid, n, q int
		rows.Scan(&uid, &n, &q)
		orders += n
		units += q
		if n != 1 || q != 1 {
			dupes++
		}
	}
	rows.Close()
	figure("retries: %d buyers, each call cut (%d cut before an answer) and sent again with its key across instances (%d sends): %d orders, %d units, %d buyers with a duplicate", tries, cut.Load(), retried.Load(), orders, units, dupes)
	if orders != tries || units != tries || dupes != 0 {
		t.Errorf("%d orders, %d units, %d duplicates for %d buyers", orders, units, dupes, tries)
	}
}

// postgresRestart is the phase "5 postgres restart" of TestCluster.
func postgresRestart(t *testing.T, c *cluster) {
	ctx := context.Background()
	store := c.instances[0].store
	stockBefore, _ := store.Stock(ctx, "TEE-OLI-M")
	logged := len(c.appErrs.String())
	c.pg.Stop()
	var slowest time.Duration
	codes := map[int]int{}
	for i := range 10 {
		start := time.Now()
		code, _, _ := call(t, c.instances[i%2].url, c.token, "/products/heavyweight-tee", `{"action":"addToCart","input":{"sku":"TEE-OLI-M"}}`)
		slowest = max(slowest, time.Since(start))
		codes[code]++
		st, _, _, _ := get(t, c.instances[i%2].url+"/healthz", "")
		codes[st]++
	}
	figure("postgres down: 10 calls and 10 health checks, statuses %v, slowest call %s", codes, slowest.Round(time.Millisecond))
	if slowest > 6*time.Second || codes[200] != 0 || codes[500] != 0 {
		t.Errorf("during the outage: %v, slowest %s (a lost database is 503, never 500); the sites logged:\n%s", codes, slowest, c.appErrs.String()[logged:])
	}
	c.pg.Start()
	recovered := time.Duration(0)
	start := time.Now()
	for time.Since(start) < 30*time.Second {
		if st, _, _, _ := get(t, c.instances[0].url+"/healthz", ""); st == 200 {
			if st2, _, _, _ := get(t, c.instances[1].url+"/healthz", ""); st2 == 200 {
				recovered = time.Since(start)
				break
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	stockAfter, _ := store.Stock(ctx, "TEE-OLI-M")
	figure("postgres back: both instances healthy after %s, stock %d → %d (nothing half written)", recovered.Round(time.Millisecond), stockBefore, stockAfter)
	if recovered == 0 || stockAfter != stockBefore {
		t.Errorf("recovered after %s, stock %d → %d", recovered, stockBefore, stockAfter)
	}
	if code, dcode, _ := call(t, c.instances[1].url, c.token, "/products/heavyweight-tee", `{"action":"addToCart","input":{"sku":"TEE-OLI-M"}}`); code != 200 && code != 429 {
		t.Errorf("a call after the restart: %d %s", code, dcode)
	}
}

// postgresFastRestart is the phase "7 postgres fast restart under load" of TestCluster.
func postgresFastRestart(t *testing.T, c *cluster) {
	ctx := context.Background()
	// The cart of the token's account (an earlier subtest may have
	// given c.token to another buyer).
	demo, err := c.instances[0].store.TokenOwner(ctx, c.token)
	if err != nil {
		t.Fatal(err)
	}
	// A cart to fill: each call adds one of a size, each size at most
	// 10 times (the cart's limit), so the cart counts the calls that ran.
	empty := func() {
		cart, err := c.instances[0].store.Cart(ctx, shop.CartOwner{UserID: demo})
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range cart.Lines {
			c.instances[0].store.SetQuantity(ctx, shop.CartOwner{UserID: demo}, l.SKU, 0)
		}
	}
	empty()
	// Sizes with stock enough for every call, and their pages.
	rows, err := c.instances[0].db.QueryContext(ctx, `SELECT s.sku, p.slug FROM skus s JOIN products p ON p.id = s.product_id
		WHERE s.stock >= 10 ORDER BY s.sku LIMIT 8`)
	if err != nil {
		t.Fatal(err)
	}
	var skus []string
	pageOf := map[string]string{}
	for rows.Next() {
		var sku, slug string
		rows.Scan(&sku, &slug)
		skus = append(skus, sku)
		pageOf[sku] = "/products/" + slug
	}
	rows.Close()
	if len(skus) < 4 {
		t.Fatalf("sizes in stock: %v", skus)
	}
	// Two instances of the store on the same database, with a limit
	// no agent here reaches: what is measured is the database going
	// away, not the rate limit (each retry is a call it counts).
	// What the instances log as errors is kept: a 500 must say why.
	var errs syncbuf.Buffer
	errLog := slog.New(slog.NewTextHandler(&errs, &slog.HandlerOptions{Level: slog.LevelError}))
	storeErrsBefore := len(c.storeErrs.String())
	var urls []string
	for _, in := range c.instances {
		app := shop.New(in.store, shop.Options{Logger: errLog, NoApprovals: true,
			DefaultLimit: ratelimit.PerMinute(1<<20, 1<<20), Secret: c.secret})
		srv := httptest.NewServer(app)
		defer srv.Close()
		urls = append(urls, srv.URL)
	}
	var mu sync.Mutex
	statuses := map[int]int{}
	done, failed := 0, 0
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for w := range 4 {
		wg.Go(func() {
			// The agent's client: a key per call, retried on 503 (and
			// on lost answers) with the same key.
			hc := &http.Client{Timeout: 20 * time.Second, Transport: statusCounter{&mu, statuses, http.DefaultTransport}}
			cl := client.New(client.Options{HTTPClient: hc, Token: c.token, Retries: 30, MaxRetryWait: time.Second})
			for i := 0; i < 10; i++ {
				select {
				case <-stop:
					return
				default:
				}
				sku := skus[(w*10+i)%len(skus)]
				_, err := cl.Call(ctx, urls[(w+i)%2]+pageOf[sku], "addToCart", map[string]any{"sku": sku})
				mu.Lock()
				if err == nil {
					done++
				} else {
					failed++
					t.Logf("a call failed: %v", err)
				}
				mu.Unlock()
				time.Sleep(20 * time.Millisecond)
			}
		})
	}
	time.Sleep(150 * time.Millisecond)
	c.pg.Stop() // a fast shutdown, then back
	c.pg.Start()
	wg.Wait()
	close(stop)
	cart, err := c.instances[0].store.Cart(ctx, shop.CartOwner{UserID: demo})
	if err != nil {
		t.Fatal(err)
	}
	figure("postgres fast restart under load: 40 keyed calls from 4 agents, %d completed, %d failed, %d in the cart; HTTP statuses seen %v",
		done, failed, cart.Count, statuses)
	if statuses[503] == 0 {
		t.Error("no call met the restart: the test measured nothing")
	}
	if statuses[500] != 0 || failed != 0 || done != 40 || cart.Count != done {
		t.Errorf("500s %d, failed %d, done %d, cart %d: every retried key must complete once", statuses[500], failed, done, cart.Count)
	}
	if s := errs.String(); s != "" {
		t.Errorf("the instances logged errors:\n%s", s)
	}
	// Their stores too: no delta of a keyed call given up.
	if s := c.storeErrs.String()[storeErrsBefore:]; s != "" {
		t.Errorf("the instances' stores logged errors:\n%s", s)
	}
	empty()
}
