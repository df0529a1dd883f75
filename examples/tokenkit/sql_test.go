package tokenkit_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	_ "github.com/go-sql-driver/mysql"
	_ "github.com/jackc/pgx/v5/stdlib"
	_ "modernc.org/sqlite"

	"github.com/affordances-go/affordances/internal/servers"
	"github.com/affordances-go/affordances/site/tokens"
	"github.com/affordances-go/affordances/site/tokens/tokenstest"
)

// database is one server the store runs on.
type database struct {
	name    string
	dialect tokens.Dialect
	open    func(t *testing.T) *sql.DB
}

func databases() []database {
	return []database{
		{"sqlite", tokens.SQLite, func(t *testing.T) *sql.DB {
			db := open(t, "sqlite", filepath.Join(t.TempDir(), "app.db")+"?_pragma=busy_timeout(5000)&_pragma=journal_mode(wal)")
			db.SetMaxOpenConns(1)
			return db
		}},
		{"postgres", tokens.PostgreSQL, func(t *testing.T) *sql.DB { return open(t, "pgx", servers.StartPostgres(t).URL) }},
		{"mariadb", tokens.MySQL, func(t *testing.T) *sql.DB { return open(t, "mysql", servers.StartMariaDB(t).DSN) }},
	}
}

func open(t *testing.T, driver, dsn string) *sql.DB {
	db, err := sql.Open(driver, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// tables numbers the tables of one server: each case gets a fresh one.
var tables atomic.Int64

// The SQL store keeps the store's contract on every database it speaks,
// one server per database, a fresh table per case.
func TestSQL_KeepsTheContractOnEveryDatabase(t *testing.T) {
	for _, d := range databases() {
		t.Run(d.name, func(t *testing.T) {
			db := d.open(t)
			tokenstest.Run(t, func(t *testing.T) tokens.Store {
				s := tokens.NewSQL(db, d.dialect, fmt.Sprintf("tokens_%d", tables.Add(1)))
				if err := s.Migrate(context.Background()); err != nil {
					t.Fatal(err)
				}
				return s
			})
		})
	}
}

// Migrate runs at every start, on several instances at once; writes in
// the application's transaction roll back with it.
func TestSQL_MigrateTwiceAndWriteInATransaction(t *testing.T) {
	ctx := context.Background()
	for _, d := range databases() {
		t.Run(d.name, func(t *testing.T) {
			db := d.open(t)
			s := tokens.NewSQL(db, d.dialect, "")
			for range 2 {
				if err := s.Migrate(ctx); err != nil {
					t.Fatal(err)
				}
			}
			tx, err := db.BeginTx(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s.Tx(tx).Create(ctx, "user:1", "rolled back", "h-rb", tokens.Grant{}, time.Now()); err != nil {
				t.Fatal(err)
			}
			tx.Rollback()
			if _, err := s.Lookup(ctx, "h-rb"); !errors.Is(err, tokens.ErrNotFound) {
				t.Fatalf("a token made in a rolled-back transaction: %v", err)
			}
			// The kit over the store: a secret is never in the table.
			kit := tokens.New(s, tokens.Options{})
			secret, tk, err := kit.Issue(ctx, "user:1", "kit", tokens.Grant{})
			if err != nil {
				t.Fatal(err)
			}
			var n int
			db.QueryRowContext(ctx, "SELECT count(*) FROM "+tokens.DefaultTable+" WHERE hash = '"+secret+"' OR label = '"+secret+"'").Scan(&n)
			if n != 0 {
				t.Fatal("the secret is stored as it is")
			}
			if got, err := kit.Lookup(ctx, secret); err != nil || got.ID != tk.ID {
				t.Fatalf("lookup of the issued secret: %+v %v", got, err)
			}
		})
	}
}

// The lookup's statement is prepared at its first use: a lookup before
// the table exists fails with the database's error and is not kept, so
// the store works once migrated; in a transaction, the lookup sees the
// transaction's own token; and concurrent first lookups agree.
func TestSQL_LookupBeforeMigrateAndInATransaction(t *testing.T) {
	ctx := context.Background()
	for _, d := range databases() {
		t.Run(d.name, func(t *testing.T) {
			db := d.open(t)
			s := tokens.NewSQL(db, d.dialect, fmt.Sprintf("tokens_%d", tables.Add(1)))
			if _, err := s.Lookup(ctx, "h"); err == nil || errors.Is(err, tokens.ErrNotFound) {
				t.Fatalf("a lookup with no table: %v", err)
			}
			if err := s.Migrate(ctx); err != nil {
				t.Fatal(err)
			}
			made, err := s.Create(ctx, "user:1", "first", "h-1", tokens.Grant{}, time.Now())
			if err != nil {
				t.Fatal(err)
			}
			var wg sync.WaitGroup
			errs := make(chan error, 8)
			for range 8 {
				wg.Go(func() {
					if got, err := s.Lookup(ctx, "h-1"); err != nil || got.ID != made.ID {
						errs <- fmt.Errorf("lookup once migrated: %+v %v", got, err)
					}
				})
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Error(err)
			}
			tx, err := db.BeginTx(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer tx.Rollback()
			in, err := s.Tx(tx).Create(ctx, "user:1", "in tx", "h-tx", tokens.Grant{}, time.Now())
			if err != nil {
				t.Fatal(err)
			}
			if got, err := s.Tx(tx).Lookup(ctx, "h-tx"); err != nil || got.ID != in.ID {
				t.Fatalf("a lookup in the transaction of its token: %+v %v", got, err)
			}
		})
	}
}

// BenchmarkSQL_Lookup is a token's lookup on SQLite against the same
// query unprepared, as the store ran it before: the baseline in the same
// run.
func BenchmarkSQL_Lookup(b *testing.B) {
	ctx := context.Background()
	db, err := sql.Open("sqlite", filepath.Join(b.TempDir(), "app.db")+"?_pragma=journal_mode(wal)")
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	s := tokens.NewSQL(db, tokens.SQLite, "")
	if err := s.Migrate(ctx); err != nil {
		b.Fatal(err)
	}
	if _, err := s.Create(ctx, "user:1", "bench", "h-bench", tokens.Grant{}, time.Now()); err != nil {
		b.Fatal(err)
	}
	b.Run("unprepared", func(b *testing.B) {
		q := `SELECT id, account, label, created_at, actions, expires_at, per_call, per_day, last_used_at, last_agent FROM ` +
			tokens.DefaultTable + ` WHERE hash = ? AND revoked_at IS NULL`
		b.ReportAllocs()
		for b.Loop() {
			var id int64
			var account, label string
			var created int64
			var actions, expires, perCall, perDay, lastUsed, lastAgent any
			if err := db.QueryRowContext(ctx, q, "h-bench").Scan(&id, &account, &label, &created, &actions, &expires, &perCall, &perDay, &lastUsed, &lastAgent); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Lookup", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := s.Lookup(ctx, "h-bench"); err != nil {
				b.Fatal(err)
			}
		}
	})
}
