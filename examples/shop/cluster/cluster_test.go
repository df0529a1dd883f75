package cluster_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/affordances-go/affordances/examples/shop/shop"
	"github.com/affordances-go/affordances/internal/servers"
	"github.com/affordances-go/affordances/internal/syncbuf"
	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site/ratelimit"
	"github.com/affordances-go/affordances/site/ratelimit/redislimit"
)

// instance is one store process: its own database pool, Redis client and
// limiter, and its own listener.
type instance struct {
	name  string
	url   string
	admin string // the admin address: /metrics and /healthz
	app   *shop.App
	store *shop.Store
	db    *shop.DB
}

type cluster struct {
	pg        *servers.Postgres
	redis     *servers.Redis
	instances []*instance // two fail-open instances
	closed    *instance   // a third, fail-closed, for the outage
	proxy     string      // nginx
	token     string      // a bearer token of the demo account
	secret    []byte      // the instances' one secret
	// storeErrs is what the instances' stores log as errors from their
	// work behind the answers (the deltas of keyed calls), storeLog.
	storeErrs syncbuf.Buffer
	storeLog  *slog.Logger
	// appErrs is what the instances' sites log as errors (an internal
	// answer's cause), for a phase that fails to show.
	appErrs syncbuf.Buffer
}

// limit is the cluster's limit per caller and action: a burst of 5, one
// more call every 4 s, slow enough that a loaded machine (the race
// detector on 2 cores) cannot earn a sixth call while the test sends 8.
var limit = ratelimit.Limit{Rate: 5, Per: 20 * time.Second, Burst: 5}

func startCluster(t *testing.T) *cluster {
	c := &cluster{pg: servers.StartPostgres(t), redis: servers.StartRedis(t)}
	c.storeLog = slog.New(slog.NewTextHandler(&c.storeErrs, &slog.HandlerOptions{Level: slog.LevelError}))
	quiet := slog.New(slog.NewTextHandler(&c.appErrs, &slog.HandlerOptions{Level: slog.LevelError}))
	secret := []byte("the cluster's one secret, as -secret-file gives it") // a retry on another instance is the same call
	start := func(name string, failClosed bool) *instance {
		ctx := context.Background()
		db, err := shop.Open(ctx, c.pg.URL)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		t.Cleanup(func() { db.Close() })
		store := shop.NewStore(db)
		store.PasswordIterations = 1000
		store.Logger = c.storeLog
		if err := store.Seed(ctx); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		ro, err := redislimit.ClientOptions("redis://" + c.redis.Addr)
		if err != nil {
			t.Fatal(err)
		}
		rdb := redis.NewClient(ro) // as the store's main builds it
		t.Cleanup(func() { rdb.Close() })
		tel, err := shop.NewTelemetry(ctx, false)
		if err != nil {
			t.Fatal(err)
		}
		app := shop.New(store, shop.Options{Logger: quiet, NoApprovals: true, DefaultLimit: limit,
			Limiter: redislimit.New(rdb, nil), LimiterFailClosed: failClosed, Observer: tel.Observer, Secret: secret})
		admin := httptest.NewServer(app.Admin(tel.Metrics))
		t.Cleanup(admin.Close)
		srv := httptest.NewUnstartedServer(app)
		srv.Config.ReadHeaderTimeout, srv.Config.WriteTimeout = 5*time.Second, 10*time.Second
		srv.Start()
		t.Cleanup(srv.Close)
		return &instance{name: name, url: srv.URL, admin: admin.URL, app: app, store: store, db: db}
	}
	c.secret = secret
	c.instances = []*instance{start("instance A", false), start("instance B", false)}
	c.closed = start("instance C (fail-closed)", true)
	conf, err := os.ReadFile("nginx.conf")
	if err != nil {
		t.Fatal(err)
	}
	ups := ""
	for _, in := range c.instances {
		ups += "server " + strings.TrimPrefix(in.url, "http://") + ";\n"
	}
	c.proxy = "http://" + servers.StartNginx(t, strings.ReplaceAll(string(conf), "{{UPSTREAMS}}", ups)).Addr
	demo, err := c.instances[0].store.UserByEmail(context.Background(), shop.DemoEmail)
	if err != nil {
		t.Fatal(err)
	}
	if c.token, err = c.instances[0].store.CreateToken(context.Background(), demo, "cluster"); err != nil {
		t.Fatal(err)
	}
	return c
}

// get sends a GET with an Accept header and returns the status, the
// Content-Type, the cache status and the body.
func get(t *testing.T, u, accept string) (int, string, string, string) {
	req, _ := http.NewRequest("GET", u, nil)
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, res.Header.Get("Content-Type"), res.Header.Get("X-Cache-Status"), string(b)
}

// call posts a call with a bearer token and returns the status, the
// delta's code and the Retry-After.
func call(t *testing.T, base, token, path, body string) (int, string, string) {
	return callKey(context.Background(), base, token, path, body, "")
}

// callKey is call with a context and an Idempotency-Key ("" for none).
func callKey(ctx context.Context, base, token, path, body, key string) (int, string, string) {
	req, _ := http.NewRequestWithContext(ctx, "POST", base+path, strings.NewReader(body))
	req.Header.Set("Content-Type", protocol.MediaType)
	req.Header.Set("Authorization", "Bearer "+token)
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err.Error(), ""
	}
	defer res.Body.Close()
	var d protocol.Delta
	json.NewDecoder(res.Body).Decode(&d)
	code := "ok"
	if d.Error != nil {
		code = string(d.Error.Code)
	}
	return res.StatusCode, code, res.Header.Get("Retry-After")
}

// newBuyers makes n accounts with a saved address and returns a token of
// each, so that a subtest's calls draw on limits of their own.
func newBuyers(t *testing.T, c *cluster, prefix string, n int) []string {
	ctx := context.Background()
	store := c.instances[0].store
	tokens := make([]string, n)
	for i := range tokens {
		id, err := store.CreateUser(ctx, fmt.Sprintf("%s%d@example.com", prefix, i), "Buyer", "a long password")
		if err != nil {
			t.Fatal(err)
		}
		store.SaveAddress(ctx, id, shop.Address{Name: "Buyer", Street: "1 Test Street", Postcode: "10115", City: "Berlin", Country: "DE"})
		if tokens[i], err = store.CreateToken(ctx, id, prefix); err != nil {
			t.Fatal(err)
		}
	}
	return tokens
}

func figure(format string, args ...any) { fmt.Printf("cluster: "+format+"\n", args...) }

func TestCluster(t *testing.T) {
	c := startCluster(t)

	t.Run("1 shared cache serves each its own representation", func(t *testing.T) { sharedCache(t, c) })

	t.Run("2 one limit across instances", func(t *testing.T) { oneLimit(t, c) })

	t.Run("2b metrics add up across instances", func(t *testing.T) { metricsAddUp(t, c) })

	t.Run("3 no lost or doubled writes", func(t *testing.T) { noLostWrites(t, c) })

	t.Run("4 redis outage", func(t *testing.T) { redisOutage(t, c) })

	t.Run("6 a hung redis", func(t *testing.T) { hungRedis(t, c) })

	t.Run("7 retries after a cut, with idempotency keys", func(t *testing.T) { retriesAfterACut(t, c) })

	t.Run("8 an MCP host through the proxy", func(t *testing.T) { mcpThroughTheProxy(t, c) })

	t.Run("5 postgres restart", func(t *testing.T) { postgresRestart(t, c) })

	t.Run("7 postgres fast restart under load", func(t *testing.T) { postgresFastRestart(t, c) })
}

// statusCounter counts the HTTP statuses its requests get.
type statusCounter struct {
	mu   *sync.Mutex
	seen map[int]int
	base http.RoundTripper
}

func (s statusCounter) RoundTrip(r *http.Request) (*http.Response, error) {
	res, err := s.base.RoundTrip(r)
	if err == nil {
		s.mu.Lock()
		s.seen[res.StatusCode]++
		s.mu.Unlock()
	}
	return res, err
}

// scrape reads an instance's /metrics and sums affordances_calls_total
// over every route, action, transport and code.
func scrape(t *testing.T, in *instance) float64 {
	t.Helper()
	return scrapeMetric(t, in, "affordances_calls_total")
}

// scrapeMetric sums one metric of an instance's /metrics over all its
// labels; a metric not yet reported is 0.
func scrapeMetric(t *testing.T, in *instance, name string) float64 {
	t.Helper()
	res, err := http.Get(in.admin + "/metrics")
	if err != nil {
		t.Fatalf("%s /metrics: %v", in.name, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	total := 0.0
	for _, line := range strings.Split(string(b), "\n") {
		if !strings.HasPrefix(line, name+"{") {
			continue
		}
		v, err := strconv.ParseFloat(line[strings.LastIndexByte(line, ' ')+1:], 64)
		if err != nil {
			t.Fatalf("%s /metrics: %q", in.name, line)
		}
		total += v
	}
	return total
}

// bearer adds a bearer token to every request, as an MCP host's HTTP
// client does.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}
