package shop_test

import (
	"context"
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/affordances-go/affordances/examples/shop/shop"
	"github.com/affordances-go/affordances/examples/shop/shoptest"
	"github.com/affordances-go/affordances/internal/servers"
	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site"
)

// lostAnswers is a key store whose Finish never happens: the process died
// after the action committed, before the delta was stored.
type lostAnswers struct{ site.IdempotencyStore }

func (lostAnswers) Finish(context.Context, string, string, string, []byte) error { return nil }

// An order with an Idempotency-Key is placed once, however often it is
// sent: repeated, and retried after the first answer was lost with the
// process that placed it. On both databases.
func TestPlaceOrder_OnceWithAnIdempotencyKey(t *testing.T) {
	dbs := map[string]func(t *testing.T) string{
		"sqlite":   func(t *testing.T) string { return filepath.Join(t.TempDir(), "shop.db") },
		"postgres": func(t *testing.T) string { return servers.StartPostgres(t).URL },
	}
	for _, name := range []string{"sqlite", "postgres"} {
		for _, lost := range []bool{false, true} {
			t.Run(name+map[bool]string{false: "/repeated", true: "/answer lost"}[lost], func(t *testing.T) {
				dsn := dbs[name](t)
				var opts shop.Options
				opts.NoApprovals = true
				if lost {
					db, err := shop.Open(context.Background(), dsn)
					if err != nil {
						t.Fatal(err)
					}
					defer db.Close()
					opts.Idempotency = lostAnswers{shop.NewStore(db).IdempotencyKeys()}
				}
				s := shoptest.StartOn(t, dsn, opts)
				send := func(key string) (int, string, protocol.Delta) {
					agent := &client{t: t, base: s.URL, bearer: s.Token, http: http.DefaultClient}
					agent.call("/products/heavyweight-tee", "addToCart", map[string]any{"sku": "TEE-BLK-M"}, false)
					res, body := agent.do("POST", "/checkout", strings.NewReader(`{"action":"placeOrder","confirm":true}`),
						"Content-Type", protocol.MediaType, "Idempotency-Key", key)
					var d protocol.Delta
					json.Unmarshal([]byte(body), &d)
					return res.StatusCode, res.Header.Get("Idempotent-Replayed"), d
				}
				code, replayed, d := send("order-1")
				if code != 200 || replayed != "" {
					t.Fatalf("first: %d %q %+v", code, replayed, d)
				}
				for range 3 {
					code, replayed, d = send("order-1")
					if code != 200 || replayed != "true" {
						t.Fatalf("retry: %d %q %+v", code, replayed, d)
					}
				}
				if n := s.Orders(t); n != 1 {
					t.Fatalf("%d orders for one key", n)
				}
				if code, _, _ := send("order-2"); code != 200 || s.Orders(t) != 2 {
					t.Errorf("a new key is a new order: %d, %d orders", code, s.Orders(t))
				}
			})
		}
	}
}
