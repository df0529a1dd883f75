package overload_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/affordances-go/affordances/examples/shop/cluster"
	"github.com/affordances-go/affordances/examples/shop/shop"
	"github.com/affordances-go/affordances/internal/servers"
	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site/ratelimit"
)

// maxInFlight is each instance's admission limit: the machine's two
// cores, with no queue (the store's default). A queue of as many, or four
// slots, measured a p99 of admitted calls 1.5 to 2 times higher under this
// load.
const maxInFlight = 2

// hoodie is the page every call goes to: eight SKUs, 25 of each in stock.
const hoodie = "/products/everyday-hoodie"

// target is a store under test: where calls go and the store whose
// database the test reads.
type target struct {
	name      string
	base      string
	store     *shop.Store
	instances int
	served    *served
}

// served records how long each instance took over the calls it answered
// 200: the site's own latency, without the time a request waits for the
// load generator's goroutines on the same two cores.
type served struct {
	mu sync.Mutex
	d  []time.Duration
}

// wrap times h's POSTs answered 200.
func (sv *served) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			h.ServeHTTP(w, r)
			return
		}
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w, status: 200}
		h.ServeHTTP(sw, r)
		if sw.status == 200 {
			d := time.Since(start)
			sv.mu.Lock()
			sv.d = append(sv.d, d)
			sv.mu.Unlock()
		}
	})
}

// take returns the durations recorded since the last take.
func (sv *served) take() []time.Duration {
	sv.mu.Lock()
	defer sv.mu.Unlock()
	d := sv.d
	sv.d = nil
	return d
}

type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}

// pct is the p-th percentile of d.
func pct(d []time.Duration, p int) time.Duration {
	if len(d) == 0 {
		return 0
	}
	l := slices.Clone(d)
	slices.Sort(l)
	return l[min(len(l)-1, len(l)*p/100)]
}

func TestOverload(t *testing.T) {
	d := 3 * time.Second
	if v := os.Getenv("AFFORDANCES_OVERLOAD"); v != "" {
		var err error
		if d, err = time.ParseDuration(v); err != nil {
			t.Fatalf("AFFORDANCES_OVERLOAD=%q: %v", v, err)
		}
	}
	t.Run("sqlite", func(t *testing.T) {
		sv := &served{}
		store, base := startInstance(t, filepath.Join(t.TempDir(), "shop.db"), sv)
		overload(t, target{name: "SQLite, one instance", base: base, store: store, instances: 1, served: sv}, d)
	})
	t.Run("postgres behind nginx", func(t *testing.T) {
		pg := servers.StartPostgres(t)
		var store *shop.Store
		sv := &served{}
		ups := ""
		for range 3 {
			st, base := startInstance(t, pg.URL, sv)
			store = st
			ups += "server " + strings.TrimPrefix(base, "http://") + ";\n"
		}
		proxy := "http://" + servers.StartNginx(t, strings.ReplaceAll(cluster.NginxConf, "{{UPSTREAMS}}", ups)).Addr
		overload(t, target{name: "PostgreSQL, three instances behind nginx", base: proxy, store: store, instances: 3, served: sv}, d)
	})
}

// startInstance starts one store instance on the database at dsn, with
// the admission limit and no rate limit that the load could meet.
func startInstance(t *testing.T, dsn string, sv *served) (*shop.Store, string) {
	ctx := context.Background()
	db, err := shop.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	store := shop.NewStore(db)
	store.PasswordIterations = 1000
	t.Cleanup(func() { store.Close(context.Background()) }) // before its database
	if err := store.Seed(ctx); err != nil {
		t.Fatal(err)
	}
	app := shop.New(store, shop.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), NoApprovals: true,
		DefaultLimit: ratelimit.PerMinute(1<<40, 1<<30), MaxInFlight: maxInFlight,
		Secret: []byte("one secret for every instance, as -secret-file gives it")})
	srv := httptest.NewUnstartedServer(sv.wrap(app))
	srv.Config.ReadHeaderTimeout, srv.Config.WriteTimeout = 10*time.Second, 30*time.Second
	srv.Start()
	t.Cleanup(srv.Close)
	return store, srv.URL
}

// overload is the whole measurement on one target.
func overload(t *testing.T, tg target, d time.Duration) {
	ctx := context.Background()
	r := newRunner(t, tg)

	// 1. Unloaded: one caller at a time.
	tg.served.take()
	unloaded := r.closedLoop(ctx, 1, time.Second, 200, 3000)
	siteBase := tg.served.take()
	if unloaded.other > 0 || unloaded.ok < 200 {
		t.Fatalf("unloaded: %d answered, %d other than 200: %v", unloaded.ok, unloaded.other, unloaded.errs)
	}
	base99 := unloaded.pct(99)

	// 2. Capacity: enough closed-loop callers to fill every instance's
	// slots and queue, and no more.
	workers := 2 * maxInFlight * tg.instances
	capLoad := r.closedLoop(ctx, workers, 2*time.Second, 0, 12000)
	if capLoad.other > 0 {
		t.Fatalf("capacity: %d answers other than 200 and 503: %v", capLoad.other, capLoad.errs)
	}
	capacity := float64(capLoad.ok) / capLoad.elapsed.Seconds()

	// 3. Twice that, open loop, with a trickle of anonymous page views.
	rate := 2 * capacity
	tg.served.take()
	load := r.openLoop(ctx, rate, d)
	siteLoad := load.served

	figure(tg.name, "capacity %.0f calls/s (%d callers); unloaded: p50 %s p99 %s at the caller, p99 %s in the site",
		capacity, workers, ms(unloaded.pct(50)), ms(base99), ms(pct(siteBase, 99)))
	figure(tg.name, "load %.0f calls/s for %s: %d sent, %d admitted (at the caller p50 %s p99 %s, in the site p50 %s p99 %s), %d shed, %d other; page views %d of %d served",
		rate, d, load.sent, load.ok, ms(load.pct(50)), ms(load.pct(99)), ms(pct(siteLoad, 50)), ms(pct(siteLoad, 99)),
		load.shed, load.other, load.pagesOK, load.pages)
	figure(tg.name, "full service %s after the load stopped; %d shed calls retried with their keys in %s",
		ms(load.recovery), load.retried, ms(load.retryTime))
	if load.saturated {
		// The rate was set by a capacity measured moments before; when a
		// neighbour takes the cores meanwhile (CI runs packages side by
		// side), the site and the generator cannot keep it, and the
		// generator stops rather than measure a queue of its own. The
		// figures above then describe a shorter load (go run ./bench
		// marks the row unmet); every check below still holds for what
		// was sent.
		figure(tg.name, "the load generator fell behind: %d of %d calls sent before more than %d were outstanding",
			load.sent, load.planned, maxOutstanding)
	}

	if load.other > 0 {
		t.Errorf("%d answers other than 200 and 503 unavailable: %v", load.other, load.errs)
	}
	if load.shed == 0 {
		t.Errorf("nothing was shed at twice the capacity")
	}
	if load.pagesOK != load.pages {
		t.Errorf("public pages: %d of %d served", load.pagesOK, load.pages)
	}
	// The p99s are figures, not assertions: speed is judged by go run
	// ./bench -only overload, never by a timed test on a shared machine.
	if load.recovery > 5*time.Second {
		t.Errorf("full service came back %s after the load stopped (at most 5 s)", ms(load.recovery))
	}
	r.checkWrites(ctx)
}

// figure prints one line of the run's figures (go run ./bench -only
// overload reads them).
func figure(name, format string, args ...any) {
	fmt.Printf("overload: %s: %s\n", name, fmt.Sprintf(format, args...))
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1fms", float64(d.Microseconds())/1000) }

// slot is one call the test makes: a buyer and one of the hoodie's SKUs.
// No line (buyer, SKU) gets more than shop.MaxQty calls, so that every
// call the store runs is a write it accepts.
type slot struct {
	buyer, sku int
	key        string
}

// runner makes buyers and calls, and counts what each line of a cart
// should hold.
type runner struct {
	t      *testing.T
	tg     target
	client *http.Client
	skus   []string
	ids    []int64
	tokens []string
	keys   atomic.Int64

	mu   sync.Mutex
	sent map[[2]int]int // calls made per line
	ok   map[[2]int]int // calls answered 200 per line
}

func newRunner(t *testing.T, tg target) *runner {
	p, err := tg.store.Product(context.Background(), strings.TrimPrefix(hoodie, "/products/"))
	if err != nil {
		t.Fatal(err)
	}
	r := &runner{t: t, tg: tg, sent: map[[2]int]int{}, ok: map[[2]int]int{},
		client: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: maxOutstanding, DisableCompression: true}}}
	for _, v := range p.Variants {
		r.skus = append(r.skus, v.SKU)
	}
	t.Cleanup(r.client.CloseIdleConnections)
	return r
}

// take returns n slots on new buyers, spread across them.
func (r *runner) take(n int) []slot {
	ctx := context.Background()
	perBuyer := len(r.skus) * shop.MaxQty
	nb := (n + perBuyer - 1) / perBuyer
	first := len(r.ids)
	for i := range nb {
		id, err := r.tg.store.CreateUser(ctx, fmt.Sprintf("load%d@example.com", first+i), "Load", "a long password")
		if err != nil {
			r.t.Fatal(err)
		}
		tok, err := r.tg.store.CreateToken(ctx, id, "load")
		if err != nil {
			r.t.Fatal(err)
		}
		r.ids, r.tokens = append(r.ids, id), append(r.tokens, tok)
	}
	slots := make([]slot, n)
	for i := range slots {
		slots[i] = slot{buyer: first + i%nb, sku: (i / nb) % len(r.skus), key: fmt.Sprintf("load-%d", r.keys.Add(1))}
	}
	return slots
}

// answer is what one call got.
type answer struct {
	status     int
	code       string
	retryAfter string
	latency    time.Duration
	err        error
}

// call sends one addToCart with the slot's key.
func (r *runner) call(ctx context.Context, s slot) answer {
	a := send(ctx, r.client, r.tg.base+hoodie, r.tokens[s.buyer], r.body(s), s.key)
	r.answered(s, a)
	return a
}

// body is the slot's call.
func (r *runner) body(s slot) string {
	return fmt.Sprintf(`{"action":"addToCart","input":{"sku":%q,"qty":1}}`, r.skus[s.sku])
}

// answered counts a call answered 200 on its line.
func (r *runner) answered(s slot, a answer) {
	if a.status == 200 && a.err == nil {
		r.mu.Lock()
		r.ok[[2]int{s.buyer, s.sku}]++
		r.mu.Unlock()
	}
}

// send posts one call with a bearer token and an Idempotency-Key.
func send(ctx context.Context, client *http.Client, url, token, body, key string) answer {
	req, _ := http.NewRequestWithContext(ctx, "POST", url, strings.NewReader(body))
	req.Header.Set("Content-Type", protocol.MediaType)
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Idempotency-Key", key)
	start := time.Now()
	res, err := client.Do(req)
	if err != nil {
		return answer{err: err, latency: time.Since(start)}
	}
	defer res.Body.Close()
	var dl protocol.Delta
	err = json.NewDecoder(res.Body).Decode(&dl)
	a := answer{status: res.StatusCode, retryAfter: res.Header.Get("Retry-After"), latency: time.Since(start), err: err}
	if dl.Error != nil {
		a.code = string(dl.Error.Code)
	}
	return a
}

// tally sums a phase's answers.
type tally struct {
	ok, shed, other int
	errs            []string
	latencies       []time.Duration // of the calls answered 200
	elapsed         time.Duration
}

func (tl *tally) add(a answer) {
	switch {
	case a.err == nil && a.status == 200:
		tl.ok++
		tl.latencies = append(tl.latencies, a.latency)
	case a.err == nil && a.status == 503 && a.code == string(protocol.CodeUnavailable) && a.retryAfter == "1":
		tl.shed++
	default:
		tl.other++
		if len(tl.errs) < 5 {
			tl.errs = append(tl.errs, fmt.Sprintf("%d %s %v", a.status, a.code, a.err))
		}
	}
}

// addAll adds the answers of the calls in slots (in order) and returns the
// calls that were shed, for retrying.
func (tl *tally) addAll(answers []answer, slots []slot) (shed []slot) {
	for i, a := range answers {
		tl.add(a)
		if a.status == 503 {
			shed = append(shed, slots[i])
		}
	}
	return shed
}

func (tl *tally) pct(p int) time.Duration { return pct(tl.latencies, p) }

// closedLoop runs workers callers, each sending its next call when the
// last one is answered, for d and at least atLeast calls (on a slow
// machine, such as under the race detector, up to 30 s), or until n calls
// were made.
func (r *runner) closedLoop(ctx context.Context, workers int, d time.Duration, atLeast, n int) *tally {
	slots := r.take(n)
	r.countSent(slots)
	var next atomic.Int64
	answers := make([]answer, n)
	var made atomic.Int64
	start := time.Now()
	deadline, limit := start.Add(d), start.Add(30*time.Second)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for now := time.Now(); now.Before(deadline) || (next.Load() < int64(atLeast) && now.Before(limit)); now = time.Now() {
				i := next.Add(1) - 1
				if i >= int64(n) {
					return
				}
				answers[i] = r.call(ctx, slots[i])
				made.Add(1)
			}
		})
	}
	wg.Wait()
	tl := &tally{elapsed: time.Since(start)}
	m := int(made.Load())
	r.uncount(slots[m:])
	r.retry(ctx, tl.addAll(answers[:m], slots)) // not timed: every call sent must end in the cart
	return tl
}

// countSent and uncount keep r.sent: what each line was sent.
func (r *runner) countSent(slots []slot) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range slots {
		r.sent[[2]int{s.buyer, s.sku}]++
	}
}

func (r *runner) uncount(slots []slot) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range slots {
		r.sent[[2]int{s.buyer, s.sku}]--
	}
}

// openLoad is what the open-loop phase saw.
type openLoad struct {
	tally
	sent, planned  int
	saturated      bool // the generator fell behind and stopped early
	pages, pagesOK int
	recovery       time.Duration // from the last call sent to full service
	served         []time.Duration
	retried        int
	retryTime      time.Duration
}

// openLoop sends calls at rate for d whatever the answers, from a process
// of its own (the generator), with anonymous page views beside them;
// then measures how soon full service is back, and retries every shed
// call with its key, as a client does.
func (r *runner) openLoop(ctx context.Context, rate float64, d time.Duration) *openLoad {
	n := int(rate * d.Seconds())
	slots := r.take(n)
	r.countSent(slots)
	probe := r.take(1)[0] // the recovery probe's buyer
	out := &openLoad{planned: n}

	stopPages := make(chan struct{})
	pagesDone := make(chan struct{})
	go func() {
		defer close(pagesDone)
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stopPages:
				return
			case <-tick.C:
			}
			out.pages++
			if res, err := r.client.Get(r.tg.base + "/"); err == nil {
				io.Copy(io.Discard, res.Body)
				res.Body.Close()
				if res.StatusCode == 200 {
					out.pagesOK++
				}
			}
		}
	}()

	spec := genSpec{URL: r.tg.base + hoodie, Rate: rate}
	for _, sl := range slots {
		spec.Calls = append(spec.Calls, genCall{Token: r.tokens[sl.buyer], Body: r.body(sl), Key: sl.key})
	}
	gen, err := startGenerator(spec)
	if err != nil {
		r.t.Fatal(err)
	}
	stopped := gen.waitStopped()
	close(stopPages)
	out.recovery = r.fullService(ctx, probe, stopped)
	res, err := gen.result()
	if err != nil {
		r.t.Fatal(err)
	}
	out.saturated = res.Saturated
	answers := make([]answer, len(res.Answers))
	for i, a := range res.Answers {
		answers[i] = a.answer()
		r.answered(slots[i], answers[i])
	}
	r.uncount(slots[len(answers):]) // never sent: the generator saturated
	out.sent = len(answers)
	out.elapsed = res.Elapsed
	out.served = r.tg.served.take() // before the retries
	<-pagesDone
	shed := out.addAll(answers, slots)
	out.retried, out.retryTime = len(shed), r.retry(ctx, shed)
	return out
}

// retry sends shed calls again with their keys, as many at a time as the
// instances have slots, as a client does after Retry-After, until each is
// answered 200 (a retry may be shed again: nginx does not spread callers
// evenly), for up to a minute each.
func (r *runner) retry(ctx context.Context, shed []slot) time.Duration {
	t0 := time.Now()
	var next atomic.Int64
	var rw sync.WaitGroup
	for range maxInFlight * r.tg.instances {
		rw.Go(func() {
			for {
				i := next.Add(1) - 1
				if i >= int64(len(shed)) {
					return
				}
				wait, give := 20*time.Millisecond, time.Now().Add(time.Minute)
				for {
					a := r.call(ctx, shed[i])
					if a.status == 200 && a.err == nil {
						break
					}
					if a.status != 503 || time.Now().After(give) {
						r.t.Errorf("retrying %s: %d %s %v", shed[i].key, a.status, a.code, a.err)
						break
					}
					time.Sleep(wait)
					wait = min(2*wait, time.Second)
				}
			}
		})
	}
	rw.Wait()
	return time.Since(t0)
}

// fullService sends one call at a time from the moment the load stopped
// until twenty in a row are answered 200, and returns how long after the
// stop the first of them was sent. Each probe sets one line of its
// buyer's cart (the same write every time).
func (r *runner) fullService(ctx context.Context, probe slot, stopped time.Time) time.Duration {
	body := fmt.Sprintf(`{"action":"setQuantity","input":{"sku":%q,"qty":1}}`, r.skus[probe.sku])
	addBody := fmt.Sprintf(`{"action":"addToCart","input":{"sku":%q,"qty":1}}`, r.skus[probe.sku])
	in := false
	var firstOK time.Time
	run := 0
	for time.Since(stopped) < 30*time.Second {
		path, b := "/cart", body
		if !in {
			path, b = hoodie, addBody // the line must be there to set it
		}
		req, _ := http.NewRequestWithContext(ctx, "POST", r.tg.base+path, strings.NewReader(b))
		req.Header.Set("Content-Type", protocol.MediaType)
		req.Header.Set("Authorization", "Bearer "+r.tokens[probe.buyer])
		sent := time.Now()
		res, err := r.client.Do(req)
		okNow := err == nil && res.StatusCode == 200
		if err == nil {
			io.Copy(io.Discard, res.Body)
			res.Body.Close()
		}
		if !okNow {
			run = 0
			time.Sleep(10 * time.Millisecond)
			continue
		}
		in = true
		if run == 0 {
			firstOK = sent
		}
		if run++; run == 20 {
			return max(0, firstOK.Sub(stopped))
		}
	}
	return time.Since(stopped)
}

// checkWrites reads every load buyer's cart: each line must hold exactly
// the calls sent to it, every one of them answered 200 in the end (shed
// calls were retried), none twice.
func (r *runner) checkWrites(ctx context.Context) {
	r.t.Helper()
	lost, doubled, lines := 0, 0, 0
	for b, id := range r.ids {
		c, err := r.tg.store.Cart(ctx, shop.CartOwner{UserID: id})
		if err != nil {
			r.t.Fatal(err)
		}
		have := map[string]int{}
		for _, l := range c.Lines {
			have[l.SKU] = l.Qty
		}
		for s, sku := range r.skus {
			want := r.sent[[2]int{b, s}]
			if want == 0 {
				continue
			}
			lines++
			if got := r.ok[[2]int{b, s}]; got != want {
				r.t.Errorf("buyer %d, %s: %d calls sent, %d answered 200", b, sku, want, got)
			}
			switch got := have[sku]; {
			case got < want:
				lost += want - got
			case got > want:
				doubled += got - want
			}
		}
	}
	figure(r.tg.name, "writes checked in the database: %d lines of %d buyers, %d lost, %d doubled", lines, len(r.ids), lost, doubled)
	if lost+doubled > 0 {
		r.t.Errorf("%d writes lost and %d doubled", lost, doubled)
	}
}
