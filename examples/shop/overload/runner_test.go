package overload_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/affordances-go/affordances/examples/shop/shop"
	"github.com/affordances-go/affordances/protocol"
)

// The load's runner: who calls what, closed and open loops, retries, and the check of every write.

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
