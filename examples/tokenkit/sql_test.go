package tokenkit_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
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
