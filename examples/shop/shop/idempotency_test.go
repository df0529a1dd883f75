package shop_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/affordances-go/affordances/examples/shop/shop"
	"github.com/affordances-go/affordances/examples/shop/shoptest"
	"github.com/affordances-go/affordances/internal/servers"
	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site/ratelimit"
)

// lostAnswers is the store's key store whose Finish never happens: the
// process died after the action committed, before the delta was stored.
type lostAnswers struct{ *shop.IdempotencyKeys }

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

// Concurrent repeats of one keyed call, before the first has answered:
// one order, and every answer is that order's delta (the repeats roll
// back and read the key) or 429 past placeOrder's limit; none is refused
// for the key. On both databases, where the key is written in the order's
// own transaction.
func TestPlaceOrder_ConcurrentRepeatsOfOneKey(t *testing.T) {
	onEachDatabase(t, func(t *testing.T, dsn string) {
		s := shoptest.StartOn(t, dsn, shop.Options{NoApprovals: true})
		agent := &client{t: t, base: s.URL, bearer: s.Token, http: http.DefaultClient}
		for round := range 4 {
			agent.call("/products/heavyweight-tee", "addToCart", map[string]any{"sku": "TEE-BLK-M"}, false)
			key := fmt.Sprintf("order-%d", round)
			codes := make([]int, 6)
			var wg sync.WaitGroup
			for i := range codes {
				wg.Go(func() {
					req, _ := http.NewRequest("POST", s.URL+"/checkout", strings.NewReader(`{"action":"placeOrder","confirm":true}`))
					req.Header.Set("Content-Type", protocol.MediaType)
					req.Header.Set("Authorization", "Bearer "+s.Token)
					req.Header.Set("Idempotency-Key", key)
					res, err := http.DefaultClient.Do(req)
					if err != nil {
						t.Error(err)
						return
					}
					res.Body.Close()
					codes[i] = res.StatusCode
				})
			}
			wg.Wait()
			ok := 0
			for _, c := range codes {
				switch c {
				case 200:
					ok++
				case 429: // over placeOrder's limit: nothing done
				default:
					t.Fatalf("round %d: answers %v", round, codes)
				}
			}
			if ok == 0 {
				t.Fatalf("round %d: no call placed the order: %v", round, codes)
			}
			if n := s.Orders(t); n != round+1 {
				t.Fatalf("round %d: %d orders after %d keys (answers %v)", round, n, round+1, codes)
			}
		}
	})
}

// Deltas are written behind the answers, many to a statement: after
// more keyed calls than one statement takes, every delta is in the
// database (a repeat, with nothing left in memory, replays it), and each
// on its own key. On both databases.
func TestIdempotency_DeltasWrittenInChunks(t *testing.T) {
	onEachDatabase(t, func(t *testing.T, dsn string) {
		s := shoptest.StartOn(t, dsn, shop.Options{NoApprovals: true, DefaultLimit: ratelimit.PerMinute(1e9, 1e9)})
		agent := &client{t: t, base: s.URL, bearer: s.Token, http: http.DefaultClient}
		send := func(i int) (int, string, protocol.Delta) {
			qty := 1 + i%2
			res, body := agent.do("POST", "/cart", strings.NewReader(fmt.Sprintf(`{"action":"setQuantity","input":{"sku":"TEE-BLK-M","qty":%d}}`, qty)),
				"Content-Type", protocol.MediaType, "Idempotency-Key", fmt.Sprintf("set-%d", i))
			var d protocol.Delta
			json.Unmarshal([]byte(body), &d)
			return res.StatusCode, res.Header.Get("Idempotent-Replayed"), d
		}
		agent.call("/products/heavyweight-tee", "addToCart", map[string]any{"sku": "TEE-BLK-M"}, false)
		const n = 150 // more than two statements' worth
		first := make([]protocol.Delta, n)
		for i := range n {
			code, _, d := send(i)
			if code != 200 {
				t.Fatalf("call %d: %d %+v", i, code, d)
			}
			first[i] = d
		}
		if err := s.Store.IdempotencyKeys().Flush(context.Background()); err != nil {
			t.Fatal(err)
		}
		for i := range n {
			code, replayed, d := send(i)
			if code != 200 || replayed != "true" || d.Message != first[i].Message {
				t.Fatalf("repeat %d: %d %q %q, first %q", i, code, replayed, d.Message, first[i].Message)
			}
		}
	})
}

// A repeat of an approved order, with its key and its approval, gets the
// order's answer and asks the person nothing, even when its guard passes
// again: the approval it brings was used by the first call, and that must
// not become a new request on the person's approvals page.
func TestPlaceOrder_ApprovedRepeatAsksNothing(t *testing.T) {
	dsn := filepath.Join(t.TempDir(), "shop.db")
	s := shoptest.StartOn(t, dsn, shop.Options{})
	db, err := shop.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	approvals := func() (n int) {
		if err := db.QueryRowContext(context.Background(), `SELECT count(*) FROM approvals`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	ctx := context.Background()
	demo, _ := s.Store.UserByEmail(ctx, shop.DemoEmail)
	sess, _ := s.Store.CreateSession(ctx, demo)
	agent := &client{t: t, base: s.URL, bearer: s.Token, http: http.DefaultClient}
	agent.call("/products/heavyweight-tee", "addToCart", map[string]any{"sku": "TEE-BLK-M"}, false)
	_, asked := agent.call("/checkout", "placeOrder", map[string]any{}, true)
	if asked.ApprovalURL == "" {
		t.Fatalf("no approval asked: %+v", asked)
	}
	approve(t, s, sess, asked.ApprovalURL)
	id := asked.ApprovalURL[strings.LastIndex(asked.ApprovalURL, "/")+1:]
	send := func() (int, string, protocol.Delta) {
		res, body := agent.do("POST", "/checkout", strings.NewReader(fmt.Sprintf(`{"action":"placeOrder","confirm":true,"approval":%q}`, id)),
			"Content-Type", protocol.MediaType, "Idempotency-Key", "approved-1")
		var d protocol.Delta
		json.Unmarshal([]byte(body), &d)
		return res.StatusCode, res.Header.Get("Idempotent-Replayed"), d
	}
	code, replayed, first := send()
	if code != 200 || replayed != "" || s.Orders(t) != 1 {
		t.Fatalf("approved call: %d %q %+v, %d orders", code, replayed, first, s.Orders(t))
	}
	// The cart is filled again (the person, in another tab), so that the
	// repeat passes the guard and reaches the approval step.
	agent.call("/products/heavyweight-tee", "addToCart", map[string]any{"sku": "TEE-BLK-M"}, false)
	before := approvals()
	code, replayed, again := send()
	if code != 200 || replayed != "true" || again.Message != first.Message || s.Orders(t) != 1 {
		t.Fatalf("repeat: %d %q %+v, %d orders", code, replayed, again, s.Orders(t))
	}
	if n := approvals(); n != before {
		t.Errorf("the repeat asked the person: %d approvals, %d before it", n, before)
	}
}

// insertKeys writes keys straight into the table, expired or not, in
// the order given (the order SQLite's sweep reads them in).
func insertKeys(t *testing.T, db *shop.DB, prefix string, expires []int64) {
	t.Helper()
	for start := 0; start < len(expires); start += 100 {
		var q strings.Builder
		q.WriteString(`INSERT INTO idempotency_keys (scope, key, fingerprint, state, claim, lease_until, expires_at) VALUES `)
		for i := start; i < min(start+100, len(expires)); i++ {
			if i > start {
				q.WriteString(", ")
			}
			fmt.Fprintf(&q, "('sweep', '%s-%d', 'fp', 'done', 'c%d', 0, %d)", prefix, i, i, expires[i])
		}
		if _, err := db.ExecContext(context.Background(), q.String()); err != nil {
			t.Fatal(err)
		}
	}
}

// countKeys counts the keys of the scope insertKeys writes, those
// expired at now and all.
func countKeys(t *testing.T, db *shop.DB, now int64) (expired, all int) {
	t.Helper()
	err := db.QueryRowContext(context.Background(), fmt.Sprintf(
		`SELECT COALESCE(SUM(CASE WHEN expires_at < %d THEN 1 ELSE 0 END), 0), COUNT(*) FROM idempotency_keys WHERE scope = 'sweep'`, now)).Scan(&expired, &all)
	if err != nil {
		t.Fatal(err)
	}
	return expired, all
}

// Keys are kept for their time, not for ever: ForgetExpired deletes the
// expired ones, more than one batch of them, and only them, even when a
// live key (one taken over after it expired) sits among the oldest.
func TestIdempotency_ExpiredKeysForgotten(t *testing.T) {
	onEachDatabase(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		db, s := openStore(t, dsn)
		now := time.Now().UnixMilli()
		expires := make([]int64, 1203)
		for i := range expires {
			expires[i] = now - time.Hour.Milliseconds()
			if i == 2 || i >= len(expires)-2 {
				expires[i] = now + time.Hour.Milliseconds()
			}
		}
		insertKeys(t, db, "k", expires)
		n, err := s.IdempotencyKeys().ForgetExpired(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if expired, all := countKeys(t, db, now); n != 1200 || expired != 0 || all != 3 {
			t.Errorf("forgot %d; left %d expired of %d", n, expired, all)
		}
		if n, err := s.IdempotencyKeys().ForgetExpired(ctx); n != 0 || err != nil {
			t.Errorf("again: %d %v", n, err)
		}
		// Three instances sweeping at once share the work: no error, no
		// key deleted twice, none left.
		old := make([]int64, 3000)
		for i := range old {
			old[i] = now - time.Hour.Milliseconds()
		}
		insertKeys(t, db, "many", old)
		var wg sync.WaitGroup
		var mu sync.Mutex
		swept := 0
		for range 3 {
			wg.Go(func() {
				n, err := s.IdempotencyKeys().ForgetExpired(ctx)
				if err != nil {
					t.Errorf("a sweep beside others: %v", err)
				}
				mu.Lock()
				swept += n
				mu.Unlock()
			})
		}
		wg.Wait()
		if expired, all := countKeys(t, db, now); swept != len(old) || expired != 0 || all != 3 {
			t.Errorf("three sweeps forgot %d of %d; left %d expired of %d", swept, len(old), expired, all)
		}
	})
}

// The store forgets expired keys by itself: a keyed call starts the
// sweep (the delta writer, or the call's transaction that wrote its key).
func TestIdempotency_WriterSweeps(t *testing.T) {
	onEachDatabase(t, func(t *testing.T, dsn string) {
		_, db, agent := keyedShop(t, dsn)
		now := time.Now().UnixMilli()
		insertKeys(t, db, "old", []int64{now - 1000, now - 1000, now - 1000})
		res, _ := agent.do("POST", "/products/heavyweight-tee", strings.NewReader(`{"action":"addToCart","input":{"sku":"TEE-BLK-M"}}`),
			"Content-Type", protocol.MediaType, "Idempotency-Key", "sweep-1")
		if res.StatusCode != 200 {
			t.Fatalf("keyed call: %d", res.StatusCode)
		}
		deadline := time.Now().Add(time.Minute)
		for {
			expired, _ := countKeys(t, db, now)
			if expired == 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%d expired keys still there a minute after a keyed call", expired)
			}
			time.Sleep(50 * time.Millisecond)
		}
	})
}

// keyedShop starts the store on dsn for an agent with a token, and opens a
// second handle on its database, to look at its keys.
func keyedShop(t *testing.T, dsn string) (*shoptest.Shop, *shop.DB, *client) {
	t.Helper()
	s := shoptest.StartOn(t, dsn, shop.Options{NoApprovals: true})
	db, err := shop.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return s, db, &client{t: t, base: s.URL, bearer: s.Token, http: http.DefaultClient}
}
