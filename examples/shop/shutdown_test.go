package main

import (
	"context"
	"errors"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/affordances-go/affordances/client"
	"github.com/affordances-go/affordances/examples/shop/shop"
)

// SIGTERM while agents are calling: the store drains the calls in flight
// and writes the keys' last deltas; restarted on the same database and
// port, it answers every retried key once. The agents' client retries lost
// answers with the same key. 0 calls lost, 0 doubled, checked in the cart.
func TestShutdown_UnderLoadLosesAndDoublesNothing(t *testing.T) {
	dir := t.TempDir()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	dbPath := filepath.Join(dir, "shop.db")
	cf := config{addr: addr, dbPath: dbPath, approvals: false, pool: 1, instances: 1}
	start := func() chan error {
		done := make(chan error, 1)
		go func() { done <- run(cf) }()
		for range 600 {
			if res, err := http.Get("http://" + addr + "/"); err == nil {
				res.Body.Close()
				return done
			}
			time.Sleep(100 * time.Millisecond)
		}
		t.Fatal("the store did not start within a minute")
		return nil
	}
	first := start()
	tok, err := os.ReadFile(startTokenPath("", dbPath))
	if err != nil {
		t.Fatal(err)
	}
	token := strings.TrimSpace(string(tok))
	ctx := context.Background()

	// Sizes with stock enough, each asked at most 6 times (a cart holds
	// 10 of one), and their pages.
	db0, err := shop.Open(ctx, dbPath)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := db0.QueryContext(ctx, `SELECT s.sku, p.slug FROM skus s JOIN products p ON p.id = s.product_id WHERE s.stock >= 10 ORDER BY s.sku LIMIT 4`)
	if err != nil {
		t.Fatal(err)
	}
	var skus, pages []string
	for rows.Next() {
		var sku, slug string
		rows.Scan(&sku, &slug)
		skus, pages = append(skus, sku), append(pages, "/products/"+slug)
	}
	rows.Close()
	db0.Close()
	if len(skus) < 4 {
		t.Fatalf("sizes in stock: %v", skus)
	}
	var mu sync.Mutex
	done, failed := 0, 0
	var lost atomic.Int64 // sends that found the store stopped or stopping
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			cl := client.New(client.Options{Token: token, Retries: 60, MaxRetryWait: 500 * time.Millisecond,
				HTTPClient: &http.Client{Timeout: 10 * time.Second, Transport: lostCounter{&lost, &http.Transport{DisableKeepAlives: true}}}})
			for i := range 6 {
				_, err := cl.Call(ctx, "http://"+addr+pages[w], "addToCart", map[string]any{"sku": skus[w], "qty": 1})
				mu.Lock()
				if err == nil {
					done++
				} else {
					failed++
					t.Logf("worker %d call %d: %v", w, i, err)
				}
				mu.Unlock()
				time.Sleep(60 * time.Millisecond)
			}
		})
	}
	time.Sleep(150 * time.Millisecond)
	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := <-first; err != nil && !errors.Is(err, http.ErrServerClosed) {
		t.Fatalf("the first run: %v", err)
	}
	time.Sleep(300 * time.Millisecond) // the store is down a while, as a real restart is
	second := start()
	wg.Wait()
	syscall.Kill(os.Getpid(), syscall.SIGTERM)
	<-second

	db, err := shop.Open(ctx, dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	store := shop.NewStore(db)
	demo, _ := store.UserByEmail(ctx, shop.DemoEmail)
	cart, err := store.Cart(ctx, shop.CartOwner{UserID: demo})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("shutdown under load: 24 keyed calls from 4 agents across a SIGTERM and a restart: %d completed, %d failed, %d in the cart; %d sends met the store down and were retried",
		done, failed, cart.Count, lost.Load())
	if lost.Load() == 0 {
		t.Error("no call met the restart: the test measured nothing")
	}
	if failed != 0 || done != 24 || cart.Count != done {
		t.Errorf("completed %d, failed %d, in the cart %d: each key must complete once ("+strconv.Itoa(24)+" calls)", done, failed, cart.Count)
	}
}

// lostCounter counts the sends that got no answer.
type lostCounter struct {
	n    *atomic.Int64
	base http.RoundTripper
}

func (l lostCounter) RoundTrip(r *http.Request) (*http.Response, error) {
	res, err := l.base.RoundTrip(r)
	if err != nil {
		l.n.Add(1)
	}
	return res, err
}
