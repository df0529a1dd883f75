package cluster_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/affordances-go/affordances/examples/shop/shop"
	"github.com/affordances-go/affordances/internal/servers"
	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site/ratelimit"
	"github.com/affordances-go/affordances/site/ratelimit/redislimit"
)

// benchShop is the store in process on a database, with a limiter.
func benchShop(b *testing.B, dsn string, limiter ratelimit.Limiter) (http.Handler, string) {
	ctx := context.Background()
	db, err := shop.Open(ctx, dsn)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	store := shop.NewStore(db)
	store.PasswordIterations = 1000
	if err := store.Seed(ctx); err != nil {
		b.Fatal(err)
	}
	demo, _ := store.UserByEmail(ctx, shop.DemoEmail)
	tok, _ := store.CreateToken(ctx, demo, "bench")
	return shop.New(store, shop.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), NoApprovals: true,
		DefaultLimit: ratelimit.PerMinute(1<<30, 1<<30), Limiter: limiter}), tok
}

// callOnce posts the benchmark's call: addToCart, the same line each time
// (setQuantity keeps the cart from growing).
func callOnce(b *testing.B, h http.Handler, tok string) {
	r := httptest.NewRequest("POST", "/cart", strings.NewReader(`{"action":"setQuantity","input":{"sku":"HOOD-GRE-M","qty":1}}`))
	r.Header.Set("Content-Type", protocol.MediaType)
	r.Header.Set("Authorization", "Bearer "+tok)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	if w.Code != 200 {
		b.Fatalf("%d %s", w.Code, w.Body)
	}
}

func graphOnce(b *testing.B, h http.Handler) {
	r := httptest.NewRequest("GET", "/products/heavyweight-tee", nil)
	r.Header.Set("Accept", protocol.MediaType)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	if w.Code != 200 {
		b.Fatalf("%d", w.Code)
	}
}

// BenchmarkLimiter is the cost of one Redis round trip per call: the same
// call with the in-memory limiter and with the Redis limiter.
//
//	go test ./examples/shop/cluster -run '^$' -bench Limiter -count 6 | benchstat -col /limiter -
func BenchmarkLimiter(b *testing.B) {
	rs := servers.StartRedis(b)
	rdb := redis.NewClient(&redis.Options{Addr: rs.Addr})
	defer rdb.Close()
	for _, c := range []struct {
		name string
		l    ratelimit.Limiter
	}{{"limiter=memory", nil}, {"limiter=redis", redislimit.New(rdb, nil)}} {
		h, tok := benchShop(b, filepath.Join(b.TempDir(), "shop.db"), c.l)
		prime(b, h, tok)
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				callOnce(b, h, tok)
			}
		})
	}
}

// BenchmarkDatabase is the store on SQLite against PostgreSQL, for a call
// and a graph.
//
//	go test ./examples/shop/cluster -run '^$' -bench Database -count 6 | benchstat -col /db -
func BenchmarkDatabase(b *testing.B) {
	pg := servers.StartPostgres(b)
	for _, c := range []struct{ name, dsn string }{
		{"db=sqlite", filepath.Join(b.TempDir(), "shop.db")}, {"db=postgres", pg.URL},
	} {
		h, tok := benchShop(b, c.dsn, nil)
		prime(b, h, tok)
		b.Run("call/"+c.name, func(b *testing.B) {
			for b.Loop() {
				callOnce(b, h, tok)
			}
		})
		b.Run("graph/"+c.name, func(b *testing.B) {
			for b.Loop() {
				graphOnce(b, h)
			}
		})
	}
}

// prime puts the line the benchmark's call changes in the cart.
func prime(b *testing.B, h http.Handler, tok string) {
	r := httptest.NewRequest("POST", "/products/everyday-hoodie", strings.NewReader(`{"action":"addToCart","input":{"sku":"HOOD-GRE-M"}}`))
	r.Header.Set("Content-Type", protocol.MediaType)
	r.Header.Set("Authorization", "Bearer "+tok)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	if w.Code != 200 {
		b.Fatalf("priming: %d %s", w.Code, w.Body)
	}
}
