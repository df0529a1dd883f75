package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sort"
	"sync"
	"time"

	"github.com/affordances-go/affordances/protocol"
)

// throughput drives the product page's graph over loopback HTTP with
// concurrent clients, through the library and through the hand-written
// handler, and reports requests per second and latency percentiles.
func throughput(ctx context.Context, e *Env, smoke bool) ([]Row, error) {
	first := serveOnce(e.app, "GET", productPath, "", "Accept", protocol.MediaType)
	var desc protocol.Graph
	if err := json.Unmarshal(first.Body.Bytes(), &desc); err != nil {
		return nil, err
	}
	oursURL, stopOurs, err := serve(e.app)
	if err != nil {
		return nil, err
	}
	defer stopOurs()
	baseURL, stopBase, err := serve(plainGraphHandler(e, desc.Actions[0]))
	if err != nil {
		return nil, err
	}
	defer stopBase()

	duration, workers := 3*time.Second, 8
	if smoke {
		duration, workers = 200*time.Millisecond, 2
	}
	var o, b load
	for round := range 3 { // alternate, as compare does
		if smoke && round > 0 {
			break
		}
		lo, err := drive(ctx, oursURL+productPath, workers, duration)
		if err != nil {
			return nil, err
		}
		lb, err := drive(ctx, baseURL+productPath, workers, duration)
		if err != nil {
			return nil, err
		}
		o.add(lo)
		b.add(lb)
	}
	or, br := o.rps(), b.rps()
	return []Row{{
		Name:     fmt.Sprintf("graph GET throughput, %d clients over loopback", workers),
		Ours:     fmt.Sprintf("%.0f req/s, p50 %s, p99 %s", or, dur(o.pct(50)), dur(o.pct(99))),
		Baseline: fmt.Sprintf("%.0f req/s, p50 %s, p99 %s", br, dur(b.pct(50)), dur(b.pct(99))),
		Ratio:    fmt.Sprintf("%.2f× throughput", or/br),
		Goal:     "≥ 0.9×",
		Met:      metOrSmoke(smoke, or >= 0.9*br),
	}}, nil
}

// load is what a run of the load generator saw.
type load struct {
	requests  int
	elapsed   time.Duration
	latencies []time.Duration
}

func (l *load) add(o load) {
	l.requests += o.requests
	l.elapsed += o.elapsed
	l.latencies = append(l.latencies, o.latencies...)
}

func (l *load) rps() float64 { return float64(l.requests) / l.elapsed.Seconds() }

func (l *load) pct(p int) time.Duration {
	if len(l.latencies) == 0 {
		return 0
	}
	sort.Slice(l.latencies, func(i, j int) bool { return l.latencies[i] < l.latencies[j] })
	return l.latencies[(len(l.latencies)-1)*p/100]
}

// drive sends GETs for the graph from workers goroutines for duration, on
// kept-alive connections, and stops by itself.
func drive(ctx context.Context, target string, workers int, duration time.Duration) (load, error) {
	return driveWith(ctx, workers, duration, func(int, int) *http.Request {
		req, _ := http.NewRequest("GET", target, nil)
		req.Header.Set("Accept", protocol.MediaType)
		return req
	})
}

// driveWith sends the requests next makes (for a worker and its n-th
// request) from workers goroutines for duration, on kept-alive
// connections, and stops by itself. An answer of 400 or more is an error:
// a fast refusal must not pass for throughput.
func driveWith(ctx context.Context, workers int, duration time.Duration, next func(worker, n int) *http.Request) (load, error) {
	tr := &http.Transport{MaxIdleConnsPerHost: workers, MaxConnsPerHost: workers}
	defer tr.CloseIdleConnections()
	hc := &http.Client{Transport: tr, Timeout: 5 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	ctx, cancel := context.WithTimeout(ctx, duration)
	defer cancel()
	var mu sync.Mutex
	var total load
	var firstErr error
	fail := func(err error) {
		mu.Lock()
		if firstErr == nil {
			firstErr = err
		}
		mu.Unlock()
	}
	var wg sync.WaitGroup
	start := time.Now()
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var mine []time.Duration
			for n := 0; ctx.Err() == nil; n++ {
				req := next(w, n).WithContext(ctx)
				t0 := time.Now()
				res, err := hc.Do(req)
				if err != nil {
					if ctx.Err() == nil {
						fail(err)
					}
					break
				}
				io.Copy(io.Discard, res.Body)
				res.Body.Close()
				if res.StatusCode >= 400 {
					fail(fmt.Errorf("%s %s: %s", req.Method, req.URL.Path, res.Status))
					break
				}
				mine = append(mine, time.Since(t0))
			}
			mu.Lock()
			total.latencies = append(total.latencies, mine...)
			total.requests += len(mine)
			mu.Unlock()
		}()
	}
	wg.Wait()
	total.elapsed = time.Since(start)
	return total, firstErr
}
