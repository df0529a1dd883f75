package shop

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"

	"github.com/affordances-go/affordances/site"

	"github.com/affordances-go/affordances/site/tokens"
)

// The store's API tokens are the library's token kit (site/tokens): its
// table, in the store's database, is tokens.DefaultTable, with the
// account "user:ID". A store made before the kit had a table "tokens" of
// its own; the first start with the kit moves its rows (ids, grants, last
// use, revoked ones too, so that orders keep their token) and drops it,
// in one transaction.

// tokenStore is the kit's store in the shop's database.
func tokenStore(db *DB) *tokens.SQL {
	if db.postgres {
		return tokens.NewSQL(db.DB, tokens.PostgreSQL, "")
	}
	return tokens.NewSQL(db.DB, tokens.SQLite, "")
}

// tableExists reports whether the database has the table.
func tableExists(ctx context.Context, db *sql.DB, table string) bool {
	rows, err := db.QueryContext(ctx, `SELECT 1 FROM `+table+` WHERE 1 = 0`)
	if err != nil {
		return false
	}
	rows.Close()
	return true
}

// migrateTokens creates the kit's table and moves the tokens of an older
// store into it.
func migrateTokens(ctx context.Context, db *sql.DB, d tokens.Dialect) error {
	if err := tokens.NewSQL(db, d, "").Migrate(ctx); err != nil {
		return err
	}
	if !tableExists(ctx, db, "tokens") {
		return nil
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	account := `'user:' || CAST(user_id AS TEXT)`
	if _, err := tx.ExecContext(ctx, `INSERT INTO `+tokens.DefaultTable+`
		(id, account, hash, label, created_at, revoked_at, actions, expires_at, per_call, per_day, last_used_at, last_agent)
		SELECT id, `+account+`, hash, label, created_at, revoked_at, scopes, expires_at, order_limit, day_limit, last_used_at, last_agent
		FROM tokens`); err != nil {
		return fmt.Errorf("moving tokens to the token kit's table: %w", err)
	}
	if d == tokens.PostgreSQL {
		if _, err := tx.ExecContext(ctx, `SELECT setval(pg_get_serial_sequence('`+tokens.DefaultTable+`', 'id'),
			coalesce((SELECT max(id) FROM `+tokens.DefaultTable+`), 0) + 1, false)`); err != nil {
			return fmt.Errorf("moving tokens to the token kit's table: %w", err)
		}
	}
	if _, err := tx.ExecContext(ctx, `DROP TABLE tokens`); err != nil {
		return fmt.Errorf("moving tokens to the token kit's table: %w", err)
	}
	return tx.Commit()
}

// tokenAccount is the kit's account of a user, as Caller.Account says it.
func tokenAccount(userID int64) string { return "user:" + itoa(userID) }

// userOfAccount is the user id of a kit's account; 0 for anything else.
func userOfAccount(account string) int64 {
	rest, ok := strings.CutPrefix(account, "user:")
	id, err := strconv.ParseInt(rest, 10, 64)
	if !ok || err != nil || id <= 0 {
		return 0
	}
	return id
}

// sessionReveal keeps a new token for the person's next view of the
// account page in their session's sealed flash, not in a cookie.
type sessionReveal struct{ s *Store }

func (v sessionReveal) Keep(r *site.Request, secret string) error {
	return v.s.SetFlash(r.Context(), shopperOf(r).Session, secret)
}

func (v sessionReveal) Take(r *site.Request) (string, error) {
	sh := shopperOf(r)
	if sh.Session == "" {
		return "", nil
	}
	return v.s.PopFlash(r.Context(), sh.Session)
}
