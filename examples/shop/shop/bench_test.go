package shop_test

import (
	"context"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/affordances-go/affordances/examples/shop/shop"
	"github.com/affordances-go/affordances/examples/shop/shoptest"
	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site/ratelimit"
)

// BenchmarkProductGraph and BenchmarkAddToCart are the store's two hot
// paths in process, for profiles (go run ./bench -only overhead compares
// them with hand-written handlers):
//
//	go test ./examples/shop/shop -run '^$' -bench . -benchmem -cpuprofile cpu.out -memprofile mem.out
func BenchmarkProductGraph(b *testing.B) {
	s := shoptest.Start(b)
	b.ReportAllocs()
	for b.Loop() {
		req := httptest.NewRequest("GET", "/products/heavyweight-tee", nil)
		req.Header.Set("Accept", protocol.MediaType)
		w := httptest.NewRecorder()
		s.App.ServeHTTP(w, req)
		if w.Code != 200 {
			b.Fatal(w.Code)
		}
	}
}

func BenchmarkAddToCart(b *testing.B) {
	b.Run("plain", func(b *testing.B) { benchmarkAddToCart(b, false) })
	b.Run("keyed", func(b *testing.B) { benchmarkAddToCart(b, true) })
}

// benchmarkAddToCart measures addToCart, with a new Idempotency-Key on
// every call when keyed.
func benchmarkAddToCart(b *testing.B, keyed bool) {
	s := shoptest.StartWith(b, shop.Options{NoApprovals: true, DefaultLimit: ratelimit.PerMinute(1e9, 1e9)})
	ctx := context.Background()
	demo, _ := s.Store.UserByEmail(ctx, "demo@example.com")
	body := `{"action":"addToCart","input":{"sku":"HOOD-GRE-M","qty":1}}`
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if i%5 == 0 {
			b.StopTimer()
			s.Store.SetQuantity(ctx, shop.CartOwner{UserID: demo}, "HOOD-GRE-M", 0)
			b.StartTimer()
		}
		i++
		req := httptest.NewRequest("POST", "/products/everyday-hoodie", strings.NewReader(body))
		req.Header.Set("Content-Type", protocol.MediaType)
		req.Header.Set("Authorization", "Bearer "+s.Token)
		if keyed {
			req.Header.Set("Idempotency-Key", "bench-"+strconv.Itoa(i))
		}
		w := httptest.NewRecorder()
		s.App.ServeHTTP(w, req)
		if w.Code != 200 {
			b.Fatal(w.Code, w.Body.String())
		}
	}
}
