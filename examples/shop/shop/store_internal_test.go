package shop

import (
	"context"
	"path/filepath"
	"testing"
)

// openStore opens a store on a new SQLite file, closed when the test
// ends, with a cheap password hash (tests sign in often).
func openStore(t *testing.T) (*Store, *DB) {
	t.Helper()
	db, err := Open(context.Background(), filepath.Join(t.TempDir(), "shop.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	s := NewStore(db)
	s.PasswordIterations = 1000
	return s, db
}
