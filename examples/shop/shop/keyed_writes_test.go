package shop_test

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/affordances-go/affordances/examples/shop/shop"
	"github.com/affordances-go/affordances/examples/shop/shoptest"
)

// A keyed call's writes all commit with its key: createToken posted again
// with one Idempotency-Key (a browser's retry, a double submit) makes one
// token, whether the repeats come one after the other or all at once. On
// both databases.
func TestCreateToken_OnceWithAnIdempotencyKey(t *testing.T) {
	onEachDatabase(t, func(t *testing.T, dsn string) {
		s := shoptest.StartOn(t, dsn, shop.Options{})
		p := (&testShop{url: s.URL, store: s.Store}).client(t, "")
		if res, body := p.form("/login", url.Values{"_action": {"signIn"}, "email": {shop.DemoEmail}, "password": {shop.DemoPassword}}); res.StatusCode != 303 {
			t.Fatalf("sign in: %d %s", res.StatusCode, body)
		}
		post := func(label, key string) int {
			res, _ := p.do("POST", "/account", strings.NewReader(url.Values{"_action": {"createToken"}, "label": {label}}.Encode()),
				"Content-Type", "application/x-www-form-urlencoded", "Origin", s.URL, "Idempotency-Key", key)
			return res.StatusCode
		}
		count := func(label string) int {
			demo, _ := s.Store.UserByEmail(context.Background(), shop.DemoEmail)
			toks, err := s.Store.Tokens(context.Background(), demo)
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for _, tk := range toks {
				if tk.Label == label {
					n++
				}
			}
			return n
		}
		post("one after the other", "k-seq")
		post("one after the other", "k-seq")
		if n := count("one after the other"); n != 1 {
			t.Fatalf("two posts with one key made %d tokens", n)
		}
		for round := range 3 {
			label := fmt.Sprintf("at once %d", round)
			var wg sync.WaitGroup
			codes := make([]int, 6)
			for i := range codes {
				wg.Go(func() { codes[i] = post(label, fmt.Sprintf("k-round-%d", round)) })
			}
			wg.Wait()
			if n := count(label); n != 1 {
				t.Fatalf("round %d: six posts at once with one key made %d tokens (answers %v)", round, n, codes)
			}
		}
	})
}
