package hostile_test

import (
	"context"
	"fmt"
	"github.com/affordances-go/affordances/examples/shop/shop"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/affordances-go/affordances/examples/shop/shoptest"
	"github.com/affordances-go/affordances/protocol"
)

// Concurrency: 64 buyers, 64 different people, race for a size with 8 in
// stock. Exactly 8 units are sold, the stock never goes below zero, and no
// answer is a server error.
func TestHostile_64BuyersRaceForEight(t *testing.T) {
	s := shoptest.Start(t) // plain v0 confirmation: 64 buyers, no one to approve
	const sku, buyers = "TEE-WHI-S", 64
	if got := s.Stock(t, sku); got != 8 {
		t.Fatalf("the seed has %d of %s, want 8", got, sku)
	}
	ctx := context.Background()
	tokens := make([]string, buyers)
	for i := range tokens {
		id, err := s.Store.CreateUser(ctx, fmt.Sprintf("buyer%d@example.com", i), fmt.Sprintf("Buyer %d", i), "a long password")
		if err != nil {
			t.Fatal(err)
		}
		s.Store.SaveAddress(ctx, id, shop.Address{Name: "Buyer", Street: "1 Test Street", Postcode: "10115", City: "Berlin", Country: "DE"})
		if tokens[i], err = s.Store.CreateToken(ctx, id, "race"); err != nil {
			t.Fatal(err)
		}
	}
	post := func(tok, path, body string) (int, string) {
		req, _ := http.NewRequest("POST", s.URL+path, strings.NewReader(body))
		req.Header.Set("Content-Type", protocol.MediaType)
		req.Header.Set("Authorization", "Bearer "+tok)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0, err.Error()
		}
		defer res.Body.Close()
		var b strings.Builder
		fmt.Fprint(&b, res.Header.Get("Content-Type"))
		return res.StatusCode, b.String()
	}
	var mu sync.Mutex
	statuses := map[int]int{}
	sold := 0
	var wg sync.WaitGroup
	start := make(chan struct{})
	for _, tok := range tokens {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			add, _ := post(tok, "/products/heavyweight-tee", `{"action":"addToCart","input":{"sku":"`+sku+`"}}`)
			order, _ := post(tok, "/checkout", `{"action":"placeOrder","confirm":true}`)
			mu.Lock()
			defer mu.Unlock()
			statuses[add]++
			statuses[order]++
			if order == 200 {
				sold++
			}
		}()
	}
	close(start)
	wg.Wait()
	for code, n := range statuses {
		if code >= 500 || code == 0 {
			t.Errorf("%d answers with status %d", n, code)
		}
	}
	if sold != 8 || s.Stock(t, sku) != 0 {
		t.Errorf("%d orders placed, stock %d; want 8 and 0 (statuses %v)", sold, s.Stock(t, sku), statuses)
	}
	counts["concurrency"] = 1
}
