// Command shop is the demo store of Affordances for Go: a small shop that
// people use in a browser and agents operate through the same URLs.
//
//	go run ./examples/shop                 # http://127.0.0.1:8080, data in shop.db
//	go run ./examples/shop -addr 127.0.0.1:9000 -db /tmp/shop.db
//
// On start it prints the demo account and a fresh bearer token for it.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/affordances-go/affordances/examples/shop/shop"
	"github.com/affordances-go/affordances/site/inspector"
	"github.com/affordances-go/affordances/site/ratelimit"
	"github.com/affordances-go/affordances/site/ratelimit/redislimit"
	"github.com/redis/go-redis/v9"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "address to listen on, HOST:PORT")
	dbPath := flag.String("db", "shop.db", "the SQLite database's path (created and seeded when missing), or a postgres:// URL")
	redisURL := flag.String("redis", "", "a redis:// URL: count rate limits in Redis, shared by every instance (default: in memory)")
	failClosed := flag.Bool("limiter-fail-closed", false, "deny calls (429) while Redis does not answer in time, instead of counting each instance's share of the limits in memory")
	maxInFlight := flag.Int("max-in-flight", 0, "calls run at once; past it calls answer 503 with Retry-After at once; 0: no limit")
	maxQueued := flag.Int("max-queued", 0, "with -max-in-flight, calls that may wait up to 100 ms for a slot (a queue for bursts; under a sustained overload it only makes admitted calls slower)")
	instances := flag.Int("instances", 1, "how many instances share -redis: while Redis does not answer, each allows 1/N of every limit")
	dev := flag.Bool("dev", false, "development: serve the inspector at "+inspector.Path+" (a page and its graph side by side)")
	adminAddr := flag.String("admin-addr", "", "a private HOST:PORT serving /metrics (Prometheus) and /healthz; off when empty")
	mcpLean := flag.Bool("mcp-lean", false, "list three MCP tools (readPage, siteIndex, callAction) instead of one per action, for hosts that load many servers")
	approvals := flag.Bool("approvals", true, "placeOrder and cancelOrder need the person's approval on the site; false: plain v0 confirmation everywhere")
	origins := flag.String("origins", os.Getenv("SHOP_ORIGINS"), "comma-separated public origins browsers use, such as https://shop.example (behind a proxy that terminates TLS); env SHOP_ORIGINS; default: each request's own")
	proxies := flag.String("trusted-proxies", os.Getenv("SHOP_TRUSTED_PROXIES"), "comma-separated addresses or CIDRs of the reverse proxies whose X-Forwarded-For names the client, such as 127.0.0.1; env SHOP_TRUSTED_PROXIES; default: none")
	defPool, err := poolDefault()
	if err != nil {
		fmt.Fprintln(os.Stderr, "shop:", err)
		os.Exit(2)
	}
	pool := flag.Int("db-pool", defPool, "PostgreSQL connections per instance, open and idle; env SHOP_DB_POOL")
	secretFile := flag.String("secret-file", os.Getenv("SHOP_SECRET_FILE"), "a file of at least 16 bytes that keys the fingerprints of Idempotency-Keys, kept out of the database, the same for every instance; created with 32 random bytes when missing; env SHOP_SECRET_FILE; default: the SQLite file's path with .secret, or shop.secret for PostgreSQL")
	flag.Parse()
	if *pool < 1 {
		fmt.Fprintf(os.Stderr, "shop: -db-pool: %d is not a number of connections (1 or more)\n", *pool)
		os.Exit(2)
	}
	cf := config{addr: *addr, dbPath: *dbPath, approvals: *approvals, redisURL: *redisURL,
		failClosed: *failClosed, dev: *dev, adminAddr: *adminAddr, pool: *pool, secretFile: *secretFile, mcpLean: *mcpLean, instances: *instances, maxInFlight: *maxInFlight, maxQueued: *maxQueued}
	if cf.origins, cf.proxies, err = parseDeployFlags(*origins, *proxies); err != nil {
		fmt.Fprintln(os.Stderr, "shop:", err)
		os.Exit(2)
	}
	if err := run(cf); err != nil {
		fmt.Fprintln(os.Stderr, "shop:", err)
		os.Exit(1)
	}
}

// config is the command line.
type config struct {
	addr, dbPath, redisURL, adminAddr string
	secretFile                        string
	approvals, failClosed, dev        bool
	mcpLean                           bool
	origins                           []string
	proxies                           []netip.Prefix
	pool, instances, maxInFlight      int
	maxQueued                         int
}

// parseDeployFlags reads -origins and -trusted-proxies: origins such as
// https://shop.example, and addresses or CIDRs.
func parseDeployFlags(origins, proxies string) ([]string, []netip.Prefix, error) {
	var out []string
	for _, o := range strings.Split(origins, ",") {
		if o = strings.TrimSpace(o); o == "" {
			continue
		}
		u, err := url.Parse(o)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil ||
			(u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.ForceQuery || u.Fragment != "" {
			return nil, nil, fmt.Errorf("-origins: %q is not an origin such as https://shop.example", o)
		}
		out = append(out, o)
	}
	var ps []netip.Prefix
	for _, p := range strings.Split(proxies, ",") {
		if p = strings.TrimSpace(p); p == "" {
			continue
		}
		if !strings.Contains(p, "/") {
			a, err := netip.ParseAddr(p)
			if err != nil {
				return nil, nil, fmt.Errorf("-trusted-proxies: %q is not an address or a CIDR", p)
			}
			ps = append(ps, netip.PrefixFrom(a, a.BitLen()))
			continue
		}
		pf, err := netip.ParsePrefix(p)
		if err != nil {
			return nil, nil, fmt.Errorf("-trusted-proxies: %q is not an address or a CIDR", p)
		}
		ps = append(ps, pf.Masked())
	}
	return out, ps, nil
}

// poolDefault is -db-pool's default: SHOP_DB_POOL when it is set, else
// 16. A value that is not a positive number is an error.
func poolDefault() (int, error) {
	v := strings.TrimSpace(os.Getenv("SHOP_DB_POOL"))
	if v == "" {
		return 16, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("SHOP_DB_POOL: %q is not a number of connections (1 or more)", v)
	}
	return n, nil
}

func run(cf config) error {
	addr, dbPath, approvals, redisURL, failClosed, dev := cf.addr, cf.dbPath, cf.approvals, cf.redisURL, cf.failClosed, cf.dev
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	db, err := shop.OpenWith(ctx, dbPath, shop.OpenOptions{PoolSize: cf.pool})
	if err != nil {
		return err
	}
	defer db.Close()
	store := shop.NewStore(db)
	if err := store.Seed(ctx); err != nil {
		return err
	}
	demo, err := store.UserByEmail(ctx, shop.DemoEmail)
	if err != nil {
		return fmt.Errorf("finding the demo account: %w", err)
	}
	token, err := startToken(ctx, store, demo, startTokenPath(cf.secretFile, dbPath))
	if err != nil {
		return err
	}

	secret, err := readSecret(cf.secretFile, dbPath)
	if err != nil {
		return err
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	store.Logger = logger // its writes behind the answers and its sweeps log with the rest
	opts := shop.Options{Logger: logger, NoApprovals: !approvals, LimiterFailClosed: failClosed, Dev: dev,
		Origins: cf.origins, TrustedProxies: cf.proxies, Secret: secret, MCPLean: cf.mcpLean, MaxInFlight: cf.maxInFlight, MaxQueued: cf.maxQueued}
	// Telemetry: metrics when an admin address is given, traces when the
	// standard OTLP variables name an endpoint.
	traces := os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || os.Getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != ""
	var tel *shop.Telemetry
	if cf.adminAddr != "" || traces {
		if tel, err = shop.NewTelemetry(ctx, traces); err != nil {
			return err
		}
		defer func() {
			flush, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			tel.Shutdown(flush)
		}()
		opts.Observer = tel.Observer
	}
	if redisURL != "" {
		// The limiter's own client: no retries, short timeouts, the
		// context's deadline obeyed (see redislimit.ClientOptions).
		ro, err := redislimit.ClientOptions(redisURL)
		if err != nil {
			return fmt.Errorf("-redis: %w", err)
		}
		rdb := redis.NewClient(ro)
		defer rdb.Close()
		opts.Limiter = redislimit.New(rdb, nil)
		if !failClosed {
			// While Redis does not answer in time, each instance counts
			// its share of every limit itself: degraded, never open.
			opts.Limiter = ratelimit.NewDegrading(opts.Limiter, ratelimit.DegradeOptions{Instances: cf.instances, Logger: logger})
		}
	}
	// Listen before building the shop, so that -addr 127.0.0.1:0 has its
	// port for the passkeys' origin, and before printing it.
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		logger.Error("shop: listening", "addr", addr, "err", err)
		os.Exit(1)
	}
	addr = ln.Addr().String()
	opts.PasskeyOrigins = passkeyOrigins(cf.origins, addr)
	// In development, people open the shop at localhost, the origin
	// passkeys accept; its loopback address sends browsers there.
	public := "http://" + addr
	local := localOrigin(addr, cf.origins)
	if local != "" {
		public = local
	}
	app := shop.New(store, opts)
	if cf.adminAddr != "" {
		admin := &http.Server{Addr: cf.adminAddr, Handler: app.Admin(tel.Metrics), ReadHeaderTimeout: 5 * time.Second}
		go func() {
			if err := admin.ListenAndServe(); err != nil && !errors.Is(err, http.ErrServerClosed) {
				logger.Error("shop: the admin address", "addr", cf.adminAddr, "err", err)
			}
		}()
		defer admin.Close()
		logger.Info("admin address: /metrics and /healthz", "addr", cf.adminAddr)
	}
	srv := shop.NewServer(addr, toLocalhost(local, app))
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()

	fmt.Printf(`Heavyweight Supply is open at %s/

  demo account:  %s / %s
  bearer token:  %s

  try:  curl -H 'Accept: application/vnd.affordances+json' %s/products/heavyweight-tee

Ctrl-C stops the shop.
`, public, shop.DemoEmail, shop.DemoPassword, token, public)
	if len(opts.PasskeyOrigins) > 0 && opts.PasskeyOrigins[0] != public {
		fmt.Printf("Passkeys (the account page): use the shop at %s/\n", opts.PasskeyOrigins[0])
	}
	if dev {
		fmt.Printf("Inspector (development): %s%s?page=/products/heavyweight-tee\n", public, inspector.Path)
	}

	select {
	case err := <-errc:
		if !errors.Is(err, http.ErrServerClosed) {
			return err
		}
	case <-ctx.Done():
		logger.Info("shutting down")
		shutdown, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := srv.Shutdown(shutdown); err != nil {
			return err
		}
		// The deltas of the last idempotent calls, written behind their
		// answers, and the sweeps running, before the database closes.
		if err := store.Close(shutdown); err != nil {
			logger.Error("writing the last idempotent calls' deltas", "err", err)
		}
	}
	return nil
}
