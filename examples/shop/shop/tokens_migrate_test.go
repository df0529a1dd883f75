package shop_test

import (
	"context"
	"strconv"
	"testing"

	"github.com/affordances-go/affordances/examples/shop/shop"
	"github.com/affordances-go/affordances/site/tokens"
)

// A store made before the token kit kept its tokens in a table of its
// own: the next start moves them to the kit's table, ids and grants and
// revoked ones included, so a printed token keeps working, and a new
// token does not reuse an old id. On both databases.
func TestTokens_AnOlderStoresTokensMoveToTheKit(t *testing.T) {
	onEachDatabase(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		db, err := shop.Open(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		s := shop.NewStore(db)
		uid, err := s.CreateUser(ctx, "old@example.com", "Old", "a long password")
		if err != nil {
			t.Fatal(err)
		}
		// The table as the store before the kit made it, with a live
		// token (hash of "afk_old") and a revoked one.
		for _, q := range []string{
			`CREATE TABLE tokens (id BIGINT PRIMARY KEY, user_id BIGINT NOT NULL, hash TEXT NOT NULL UNIQUE, label TEXT NOT NULL,
				created_at BIGINT NOT NULL, revoked_at BIGINT, scopes TEXT, expires_at BIGINT, order_limit BIGINT NOT NULL DEFAULT 0,
				day_limit BIGINT NOT NULL DEFAULT 0, last_used_at BIGINT, last_agent TEXT NOT NULL DEFAULT '')`,
			`INSERT INTO tokens (id, user_id, hash, label, created_at, scopes, order_limit, day_limit)
				VALUES (7, ` + strconv.FormatInt(uid, 10) + `, '` + tokens.Hash("afk_old") + `', 'laptop', 1700000000, 'addToCart,placeOrder', 2500, 4000)`,
			`INSERT INTO tokens (id, user_id, hash, label, created_at, revoked_at) VALUES (9, ` + strconv.FormatInt(uid, 10) + `, 'gone', 'old', 1700000000, 1700000001)`,
			`DROP TABLE ` + "afford_tokens",
		} {
			if _, err := db.ExecContext(ctx, q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
		db.Close()

		db, err = shop.Open(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		s = shop.NewStore(db)
		if id, err := s.TokenOwner(ctx, "afk_old"); err != nil || id != uid {
			t.Fatalf("the old token after the move: %d %v", id, err)
		}
		toks, err := s.Tokens(ctx, uid)
		if err != nil || len(toks) != 1 || toks[0].ID != 7 || toks[0].Label != "laptop" ||
			toks[0].Grant.OrderLimit != 2500 || toks[0].Grant.DayLimit != 4000 || len(toks[0].Grant.Actions) != 2 {
			t.Fatalf("the old token as the kit keeps it: %+v %v", toks, err)
		}
		if _, err := db.ExecContext(ctx, `SELECT 1 FROM tokens`); err == nil {
			t.Fatal("the old table is still there")
		}
		if _, err := s.CreateToken(ctx, uid, "new"); err != nil {
			t.Fatal(err)
		}
		toks, _ = s.Tokens(ctx, uid)
		if len(toks) != 2 || toks[1].ID <= 9 {
			t.Fatalf("a new token after the move: %+v (its id must come after the moved ones)", toks)
		}
	})
}
