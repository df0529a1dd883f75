package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/affordances-go/affordances/examples/shop/cluster"
	"github.com/affordances-go/affordances/examples/shop/shop"
	"github.com/affordances-go/affordances/internal/servers"
	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site/ratelimit"
)

// clusterThroughput is the deployment of docs/deploy.md under load on this
// machine: one store instance on PostgreSQL, served directly, against
// three instances on the same PostgreSQL behind nginx (the cluster test's
// nginx.conf). Every request is a signed-in buyer's (a bearer token), so
// nginx's cache serves none of them: the row measures the proxy and three
// pools on one database, not the cache.
func clusterThroughput(ctx context.Context, _ *Env, smoke bool) (rows []Row, err error) {
	rt := &runT{}
	defer rt.close()
	defer func() {
		switch f := recover().(type) {
		case nil:
		case runFailure:
			err = errors.New(string(f))
		default:
			panic(f)
		}
	}()
	pg := servers.StartPostgres(rt)
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	var urls []string
	var store *shop.Store
	for range 3 {
		db, err := shop.Open(ctx, pg.URL)
		if err != nil {
			return nil, err
		}
		rt.Cleanup(func() { db.Close() })
		st := shop.NewStore(db)
		st.PasswordIterations = 1000
		if err := st.Seed(ctx); err != nil {
			return nil, err
		}
		store = st
		app := shop.New(st, shop.Options{Logger: quiet, NoApprovals: true, DefaultLimit: ratelimit.PerMinute(1<<40, 1<<30),
			Secret: []byte("one secret for the cluster's instances")})
		u, stop, err := serve(app)
		if err != nil {
			return nil, err
		}
		rt.Cleanup(stop)
		urls = append(urls, u)
	}
	ups := ""
	for _, u := range urls {
		ups += "server " + strings.TrimPrefix(u, "http://") + ";\n"
	}
	proxy := "http://" + servers.StartNginx(rt, strings.ReplaceAll(cluster.NginxConf, "{{UPSTREAMS}}", ups)).Addr
	// The same nginx in front of the first instance alone: what the hop
	// through the proxy costs, apart from sharing the load.
	proxyOne := "http://" + servers.StartNginx(rt, strings.ReplaceAll(cluster.NginxConf, "{{UPSTREAMS}}",
		"server "+strings.TrimPrefix(urls[0], "http://")+";\n")).Addr

	duration, workers := 2*time.Second, 16
	if smoke {
		duration, workers = 300*time.Millisecond, 2
	}
	// One buyer per worker, so that calls wait on no other buyer's cart.
	tokens := make([]string, workers)
	for i := range tokens {
		id, err := store.CreateUser(ctx, fmt.Sprintf("load%d@example.com", i), "Load", "a long password")
		if err != nil {
			return nil, err
		}
		if tokens[i], err = store.CreateToken(ctx, id, "load"); err != nil {
			return nil, err
		}
	}
	// A buyer's visit: the product's graph, then a call that sets a cart
	// line (the same work every time), in turn.
	visit := func(base string) func(w, n int) *http.Request {
		return func(w, n int) *http.Request {
			var req *http.Request
			if n%2 == 0 {
				req, _ = http.NewRequest("GET", base+productPath, nil)
				req.Header.Set("Accept", protocol.MediaType)
			} else {
				req, _ = http.NewRequest("POST", base+"/cart", strings.NewReader(`{"action":"setQuantity","input":{"sku":"HOOD-GRE-M","qty":1}}`))
				req.Header.Set("Content-Type", protocol.MediaType)
			}
			req.Header.Set("Authorization", "Bearer "+tokens[w])
			return req
		}
	}
	// setQuantity needs the line in the cart: each buyer adds it once.
	for w := range workers {
		req, _ := http.NewRequest("POST", urls[0]+callPath, strings.NewReader(`{"action":"addToCart","input":{"sku":"HOOD-GRE-M"}}`))
		req.Header.Set("Content-Type", protocol.MediaType)
		req.Header.Set("Authorization", "Bearer "+tokens[w])
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			return nil, err
		}
		res.Body.Close()
		if res.StatusCode != 200 {
			return nil, fmt.Errorf("adding the line for buyer %d: %s", w, res.Status)
		}
	}

	rounds := 5
	if smoke {
		rounds = 1
	} else {
		for _, base := range []string{urls[0], proxy, proxyOne} {
			driveWith(ctx, workers, time.Second, visit(base)) // connections, PostgreSQL's caches
		}
	}
	one, three, err := alternate(ctx, rounds, workers, duration, visit(urls[0]), visit(proxy))
	if err != nil {
		return nil, fmt.Errorf("three instances through nginx: %w", err)
	}
	direct, hop, err := alternate(ctx, rounds, workers, duration, visit(urls[0]), visit(proxyOne))
	if err != nil {
		return nil, fmt.Errorf("one instance through nginx: %w", err)
	}
	or, br := three.rps(), one.rps()
	p99ok := three.pct(99) < 2*one.pct(99)
	key, err := keyCostOn(ctx, pg.URL, smoke)
	if err != nil {
		return nil, fmt.Errorf("the key's cost on PostgreSQL: %w", err)
	}
	return []Row{key, {
		Name:     fmt.Sprintf("cluster: 3 instances via nginx vs 1 direct, PostgreSQL, %d signed-in buyers (graph GET + setQuantity)", workers),
		Ours:     fmt.Sprintf("%.0f req/s, p50 %s, p99 %s", or, dur(three.pct(50)), dur(three.pct(99))),
		Baseline: fmt.Sprintf("%.0f req/s, p50 %s, p99 %s", br, dur(one.pct(50)), dur(one.pct(99))),
		Ratio:    fmt.Sprintf("%.2f× throughput, %.2f× p99", or/br, float64(three.pct(99))/float64(one.pct(99))),
		Goal:     "≥ 0.9×, p99 < 2×",
		Met:      metOrSmoke(smoke, or >= 0.9*br && p99ok),
		Note:     fmt.Sprintf("median of %d alternated rounds; nginx, PostgreSQL, the instances and the load share this machine's cores", rounds),
	}, {
		Name:     "cluster: 1 instance via nginx vs 1 direct, the same load",
		Ours:     fmt.Sprintf("%.0f req/s, p50 %s, p99 %s", hop.rps(), dur(hop.pct(50)), dur(hop.pct(99))),
		Baseline: fmt.Sprintf("%.0f req/s, p50 %s, p99 %s", direct.rps(), dur(direct.pct(50)), dur(direct.pct(99))),
		Ratio:    fmt.Sprintf("%.2f× throughput, %.2f× p99", hop.rps()/direct.rps(), float64(hop.pct(99))/float64(direct.pct(99))),
		Note:     "what the hop through the proxy costs by itself, on the same two cores: compare with the row above",
	}}, nil
}

// alternate drives two sides with the same load, round by round, swapping
// which runs first, and returns the round whose ratio of throughputs
// (b to a) is the median: one noisy round of a shared machine moves
// nothing.
func alternate(ctx context.Context, rounds, workers int, duration time.Duration, a, b func(w, n int) *http.Request) (load, load, error) {
	type pair struct{ a, b load }
	var pairs []pair
	for round := range rounds {
		var p pair
		sides := []struct {
			into *load
			next func(w, n int) *http.Request
		}{{&p.a, a}, {&p.b, b}}
		if round%2 == 1 {
			sides[0], sides[1] = sides[1], sides[0]
		}
		for _, s := range sides {
			l, err := driveWith(ctx, workers, duration, s.next)
			if err != nil {
				return load{}, load{}, err
			}
			*s.into = l
		}
		pairs = append(pairs, p)
	}
	sort.Slice(pairs, func(i, j int) bool { return pairs[i].b.rps()/pairs[i].a.rps() < pairs[j].b.rps()/pairs[j].a.rps() })
	mid := pairs[len(pairs)/2]
	return mid.a, mid.b, nil
}

// runFailure is what runT's Fatal panics with, to stop the measurement as
// a failing test would stop.
type runFailure string

// runT gives internal/servers what it needs of a test (servers.T) in a
// program: cleanups that run at close, temporary directories, and
// failures that stop the measurement.
type runT struct{ cleanups []func() }

func (r *runT) Helper()          {}
func (r *runT) Cleanup(f func()) { r.cleanups = append(r.cleanups, f) }
func (r *runT) TempDir() string {
	d, err := os.MkdirTemp("", "affordances-bench-")
	if err != nil {
		panic(runFailure(err.Error()))
	}
	r.Cleanup(func() { os.RemoveAll(d) })
	return d
}
func (r *runT) Errorf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "bench: "+format+"\n", args...)
}
func (r *runT) Fatal(args ...any)                 { panic(runFailure(fmt.Sprint(args...))) }
func (r *runT) Fatalf(format string, args ...any) { panic(runFailure(fmt.Sprintf(format, args...))) }
func (r *runT) Skipf(format string, args ...any)  { panic(runFailure(fmt.Sprintf(format, args...))) }

// close runs the cleanups, last first, as testing does.
func (r *runT) close() {
	for i := len(r.cleanups) - 1; i >= 0; i-- {
		r.cleanups[i]()
	}
}

// keyCostOn is the cost of an Idempotency-Key on a call with the store on
// the PostgreSQL at dsn: the database of a deployment with several
// instances, where keys make retries across instances exactly once. The
// same comparison as the overhead group's row on SQLite, in process.
func keyCostOn(ctx context.Context, dsn string, smoke bool) (Row, error) {
	db, err := shop.Open(ctx, dsn)
	if err != nil {
		return Row{}, err
	}
	e, err := newEnv(ctx, db)
	if err != nil {
		db.Close()
		return Row{}, err
	}
	defer e.close()
	return e.keyCost(ctx, "PostgreSQL", smoke)
}
