package shop_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/affordances-go/affordances/examples/shop/shop"
	"github.com/affordances-go/affordances/internal/servers"
	"github.com/affordances-go/affordances/site/approval"
)

// backends runs a test on a fresh, seeded store on each database: SQLite
// and PostgreSQL (a real server on a free loopback port).
func backends(t *testing.T, test func(t *testing.T, s *shop.Store)) {
	onEachDatabase(t, func(t *testing.T, dsn string) {
		_, s := openStore(t, dsn)
		test(t, s)
	})
}

// openStore opens the database at dsn and a seeded store on it, both
// closed when the test ends.
func openStore(t *testing.T, dsn string) (*shop.DB, *shop.Store) {
	t.Helper()
	ctx := context.Background()
	db, err := shop.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	s := shop.NewStore(db)
	s.PasswordIterations = 1000
	if err := s.Seed(ctx); err != nil {
		t.Fatal(err)
	}
	return db, s
}

// onEachDatabase runs a test, as a subtest, with the address of a new
// empty database of each kind the store supports: a SQLite file, and a
// PostgreSQL server of its own on a free loopback port.
func onEachDatabase(t *testing.T, test func(t *testing.T, dsn string)) {
	open := map[string]func(t *testing.T) string{
		"sqlite":   func(t *testing.T) string { return filepath.Join(t.TempDir(), "shop.db") },
		"postgres": func(t *testing.T) string { return servers.StartPostgres(t).URL },
	}
	for _, name := range []string{"sqlite", "postgres"} {
		t.Run(name, func(t *testing.T) { test(t, open[name](t)) })
	}
}

// The store's suite, on both databases.
func TestStore_OnEveryDatabase(t *testing.T) {
	backends(t, func(t *testing.T, s *shop.Store) {
		ctx := context.Background()
		// Catalog and search, with LIKE's wildcards escaped.
		if _, n, err := s.Catalog(ctx, "", 0, 8); err != nil || n != 14 {
			t.Fatalf("catalog: %d %v", n, err)
		}
		if _, n, _ := s.Catalog(ctx, "%", 0, 8); n != 0 {
			t.Errorf("%% matched %d products", n)
		}
		// Accounts, sessions, tokens.
		id, err := s.CreateUser(ctx, "Grace@example.com", "Grace", "a long password")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.CreateUser(ctx, "grace@example.com", "Again", "another one"); !errors.Is(err, shop.ErrEmailTaken) {
			t.Errorf("a second account for an email: %v", err)
		}
		if u, err := s.Authenticate(ctx, "GRACE@example.com", "a long password"); err != nil || u.ID != id {
			t.Fatalf("sign in: %v", err)
		}
		sess, _ := s.CreateSession(ctx, id)
		if u, err := s.Session(ctx, sess); err != nil || u.ID != id {
			t.Fatalf("session: %v", err)
		}
		tok, _ := s.CreateToken(ctx, id, "agent")
		if u, err := s.TokenOwner(ctx, tok); err != nil || u != id {
			t.Fatalf("token: %v", err)
		}
		// A guest's cart is merged at sign-in, capped by the stock.
		guest := shop.CartOwner{GuestHash: "g1"}
		if _, err := s.AddToCart(ctx, guest, "TEE-BLK-M", 2); err != nil {
			t.Fatal(err)
		}
		if _, err := s.AddToCart(ctx, shop.CartOwner{UserID: id}, "TEE-BLK-M", 1); err != nil {
			t.Fatal(err)
		}
		if err := s.MergeGuestCart(ctx, "g1", id); err != nil {
			t.Fatal(err)
		}
		if c, _ := s.Cart(ctx, shop.CartOwner{UserID: id}); c.Count != 3 {
			t.Errorf("merged cart: %d items", c.Count)
		}
		// An order takes the stock and empties the cart, in one go.
		before, _ := s.Stock(ctx, "TEE-BLK-M")
		oid, err := s.PlaceOrder(ctx, id, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if after, _ := s.Stock(ctx, "TEE-BLK-M"); after != before-3 {
			t.Errorf("stock %d after an order of 3 from %d", after, before)
		}
		if o, err := s.Order(ctx, id, oid); err != nil || len(o.Items) != 1 || o.Items[0].Qty != 3 {
			t.Errorf("order: %+v %v", o, err)
		}
		if _, err := s.PlaceOrder(ctx, id, nil, nil); err == nil {
			t.Error("an order of an empty cart")
		}
		// Approvals change state once.
		ap := s.Approvals()
		a := approval.Approval{ID: "ap1", Account: "user:1", Page: "/checkout", Action: "placeOrder", Summary: "x", State: approval.Pending, Expires: time.Now().Add(time.Minute)}
		if err := ap.Create(ctx, a); err != nil {
			t.Fatal(err)
		}
		if err := ap.Use(ctx, "ap1"); !errors.Is(err, approval.ErrDecided) {
			t.Errorf("using a pending approval: %v", err)
		}
		if err := ap.Decide(ctx, "ap1", true); err != nil {
			t.Fatal(err)
		}
		if err := ap.Use(ctx, "ap1"); err != nil {
			t.Fatal(err)
		}
		if err := ap.Use(ctx, "ap1"); !errors.Is(err, approval.ErrDecided) {
			t.Errorf("using an approval twice: %v", err)
		}
		if _, err := ap.Get(ctx, "nope"); !errors.Is(err, approval.ErrNotFound) {
			t.Errorf("a missing approval: %v", err)
		}
	})
}

// Buyers racing for the last units never oversell, on either database.
func TestStore_ConcurrentOrdersNeverOversell(t *testing.T) {
	backends(t, func(t *testing.T, s *shop.Store) {
		ctx := context.Background()
		const sku, buyers = "TEE-WHI-S", 20 // 8 in stock
		ids := make([]int64, buyers)
		for i := range ids {
			id, err := s.CreateUser(ctx, "b"+itoaTest(i)+"@example.com", "B", "a long password")
			if err != nil {
				t.Fatal(err)
			}
			ids[i] = id
			if _, err := s.AddToCart(ctx, shop.CartOwner{UserID: id}, sku, 1); err != nil {
				t.Fatal(err)
			}
		}
		var wg sync.WaitGroup
		var mu sync.Mutex
		placed := 0
		for _, id := range ids {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, err := s.PlaceOrder(ctx, id, nil, nil)
				var u *shop.ErrUnavailable
				switch {
				case err == nil:
					mu.Lock()
					placed++
					mu.Unlock()
				case !errors.As(err, &u):
					t.Errorf("order: %v", err)
				}
			}()
		}
		wg.Wait()
		if stock, _ := s.Stock(ctx, sku); placed != 8 || stock != 0 {
			t.Errorf("%d orders, stock %d: want 8 and 0", placed, stock)
		}
	})
}

func itoaTest(i int) string { return string(rune('a'+i/26)) + string(rune('a'+i%26)) }

// Each start prints a new token for the demo account and revokes the one
// the start before printed: the account keeps one, and a token the person
// made themselves is untouched. On both databases.
func TestStore_OneStartToken(t *testing.T) {
	backends(t, func(t *testing.T, s *shop.Store) {
		ctx := context.Background()
		demo, _ := s.UserByEmail(ctx, shop.DemoEmail)
		own, _ := s.CreateToken(ctx, demo, "my agent")
		first, err := s.NewStartToken(ctx, demo)
		if err != nil {
			t.Fatal(err)
		}
		second, err := s.NewStartToken(ctx, demo)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.TokenUser(ctx, first, ""); !errors.Is(err, shop.ErrNotFound) {
			t.Errorf("the first start's token still works: %v", err)
		}
		for _, tok := range []string{second, own} {
			if _, _, err := s.TokenUser(ctx, tok, ""); err != nil {
				t.Errorf("a live token was revoked: %v", err)
			}
		}
		toks, _ := s.Tokens(ctx, demo)
		starts := 0
		for _, tk := range toks {
			if strings.HasPrefix(tk.Label, shop.StartTokenLabel) {
				starts++
			}
		}
		if starts != 1 {
			t.Errorf("%d start tokens listed: %+v", starts, toks)
		}
	})
}

// The store finds the pending approval of the same call by the same
// credential, and no other; on both databases.
func TestStore_PendingApprovalIsFound(t *testing.T) {
	backends(t, func(t *testing.T, s *shop.Store) {
		ctx := context.Background()
		now := time.Now()
		a := approval.Approval{ID: "ap1", Account: "user:1", Credential: "tok:1", Page: "/checkout", Action: "placeOrder",
			Input: "in", Summary: "1 tee", State: approval.Pending, Expires: now.Add(time.Minute)}
		if err := s.Approvals().Create(ctx, a); err != nil {
			t.Fatal(err)
		}
		if got, err := s.Approvals().Pending(ctx, a, now); err != nil || got.ID != "ap1" {
			t.Errorf("the same call: %v %v", got.ID, err)
		}
		other := a
		other.Input = "another"
		if _, err := s.Approvals().Pending(ctx, other, now); !errors.Is(err, approval.ErrNotFound) {
			t.Errorf("another input: %v", err)
		}
		if _, err := s.Approvals().Pending(ctx, a, now.Add(2*time.Minute)); !errors.Is(err, approval.ErrNotFound) {
			t.Errorf("expired: %v", err)
		}
		s.Approvals().Decide(ctx, "ap1", false)
		if _, err := s.Approvals().Pending(ctx, a, now); !errors.Is(err, approval.ErrNotFound) {
			t.Errorf("declined: %v", err)
		}
	})
}

// Sessions are kept while they can be used, not for ever: a sign-in
// clears the expired ones, and ForgetExpiredSessions deletes only those.
func TestStore_ExpiredSessionsForgotten(t *testing.T) {
	onEachDatabase(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		db, s := openStore(t, dsn)
		uid, err := s.UserByEmail(ctx, shop.DemoEmail)
		if err != nil {
			t.Fatal(err)
		}
		now := time.Now().Unix()
		for i, exp := range []int64{now - 3600, now - 60, now + 3600} {
			if _, err := db.ExecContext(ctx, fmt.Sprintf(`INSERT INTO sessions (id_hash, user_id, created_at, expires_at) VALUES ('old-%d', %d, 0, %d)`, i, uid, exp)); err != nil {
				t.Fatal(err)
			}
		}
		count := func(where string) int {
			var n int
			if err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM sessions WHERE id_hash LIKE 'old-%' `+where).Scan(&n); err != nil {
				t.Fatal(err)
			}
			return n
		}
		if _, err := s.CreateSession(ctx, uid); err != nil { // a sign-in
			t.Fatal(err)
		}
		deadline := time.Now().Add(time.Minute)
		for count("") != 1 && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		if all, live := count(""), count(fmt.Sprintf("AND expires_at > %d", now)); all != 1 || live != 1 {
			t.Errorf("after a sign-in: %d sessions of the three, %d live", all, live)
		}
		if n, err := s.ForgetExpiredSessions(ctx); n != 0 || err != nil {
			t.Errorf("again: %d %v", n, err)
		}
	})
}

// TestStore_AbandonedGuestCartsForgotten checks that a guest's add clears
// the guest carts nobody can reach any more (made longer ago than their
// cookie lives), with their lines, and nothing else: a recent guest cart,
// a cart with no date, and a signed-in person's cart, however old.
func TestStore_AbandonedGuestCartsForgotten(t *testing.T) {
	onEachDatabase(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		db, s := openStore(t, dsn)
		uid, err := s.UserByEmail(ctx, shop.DemoEmail)
		if err != nil {
			t.Fatal(err)
		}
		day := int64(24 * 3600)
		now := time.Now().Unix()
		for _, q := range []string{
			fmt.Sprintf(`INSERT INTO carts (guest_hash, created_at) VALUES ('old-a', %d)`, now-31*day),
			fmt.Sprintf(`INSERT INTO carts (guest_hash, created_at) VALUES ('old-b', %d)`, now-400*day),
			fmt.Sprintf(`INSERT INTO carts (guest_hash, created_at) VALUES ('recent', %d)`, now-29*day),
			`INSERT INTO carts (guest_hash, created_at) VALUES ('undated', NULL)`,
			fmt.Sprintf(`INSERT INTO carts (user_id, created_at) VALUES (%d, %d)`, uid, now-400*day),
			`INSERT INTO cart_items (cart_id, sku, qty) SELECT id, 'TEE-BLK-M', 2 FROM carts`,
		} {
			if _, err := db.ExecContext(ctx, q); err != nil {
				t.Fatal(q, err)
			}
		}
		count := func(q string) int {
			var n int
			if err := db.QueryRowContext(ctx, q).Scan(&n); err != nil {
				t.Fatal(q, err)
			}
			return n
		}
		// A new guest's first add.
		if _, err := s.AddToCart(ctx, shop.CartOwner{GuestHash: "new-guest"}, "TEE-BLK-M", 1); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(time.Minute)
		for count(`SELECT COUNT(*) FROM carts WHERE guest_hash LIKE 'old-%'`) != 0 && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		var left []string
		rows, err := db.QueryContext(ctx, `SELECT coalesce(guest_hash, 'user') FROM carts ORDER BY 1`)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var h string
			rows.Scan(&h)
			left = append(left, h)
		}
		rows.Close()
		if got := strings.Join(left, ","); got != "new-guest,recent,undated,user" {
			t.Errorf("carts left: %s; want new-guest,recent,undated,user", got)
		}
		if n := count(`SELECT COUNT(*) FROM cart_items WHERE cart_id NOT IN (SELECT id FROM carts)`); n != 0 {
			t.Errorf("%d lines of deleted carts left", n)
		}
		if n := count(`SELECT COUNT(*) FROM cart_items`); n != 4 {
			t.Errorf("%d cart lines, want 4: one for each cart kept, and the new guest's", n)
		}
		if n, err := s.ForgetAbandonedGuestCarts(ctx); n != 0 || err != nil {
			t.Errorf("again: %d %v", n, err)
		}
	})
}

// TestOpen_DatesTheCartsOfAnOlderDatabase opens a database made before
// carts were dated: its carts get the time of the upgrade, so that a
// guest's cart lives a cookie's lifetime from then rather than being
// taken for an old one, or never swept.
func TestOpen_DatesTheCartsOfAnOlderDatabase(t *testing.T) {
	onEachDatabase(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		db, _ := openStore(t, dsn)
		for _, q := range []string{
			`DROP INDEX guest_carts_by_age`,
			`ALTER TABLE carts DROP COLUMN created_at`,
			`INSERT INTO carts (guest_hash) VALUES ('from-before')`,
		} {
			if _, err := db.ExecContext(ctx, q); err != nil {
				t.Fatal(q, err)
			}
		}
		db.Close()
		before := time.Now().Unix()
		db, s := openStore(t, dsn)
		var created sql.NullInt64
		if err := db.QueryRowContext(ctx, `SELECT created_at FROM carts WHERE guest_hash = 'from-before'`).Scan(&created); err != nil {
			t.Fatal(err)
		}
		if !created.Valid || created.Int64 < before || created.Int64 > time.Now().Unix() {
			t.Errorf("the older cart is dated %v, want the upgrade's time (from %d)", created, before)
		}
		if n, err := s.ForgetAbandonedGuestCarts(ctx); n != 0 || err != nil {
			t.Errorf("the sweep after the upgrade: %d carts, %v", n, err)
		}
	})
}
