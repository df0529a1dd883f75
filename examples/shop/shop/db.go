package shop

import (
	"context"
	"database/sql"
	"fmt"

	_ "modernc.org/sqlite" // the embedded database: pure Go, no cgo
)

// Open opens (creating if needed) the store's SQLite database at path and
// brings its schema up to date. The database is used through a single
// connection: SQLite serialises writers anyway, and one connection makes
// every transaction exclusive without busy retries. In WAL mode,
// synchronous=NORMAL keeps the database consistent after a crash and only
// risks the last transactions on a power loss, the usual choice for WAL.
func Open(ctx context.Context, path string) (*sql.DB, error) {
	dsn := "file:" + path + "?_pragma=foreign_keys(1)&_pragma=journal_mode(WAL)&_pragma=busy_timeout(5000)&_pragma=synchronous(NORMAL)&_txlock=immediate"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", path, err)
	}
	db.SetMaxOpenConns(1)
	if _, err := db.ExecContext(ctx, schemaSQL); err != nil {
		db.Close()
		return nil, fmt.Errorf("creating the schema in %s: %w", path, err)
	}
	return db, nil
}

const schemaSQL = `
CREATE TABLE IF NOT EXISTS products (
	id          INTEGER PRIMARY KEY,
	slug        TEXT NOT NULL UNIQUE,
	name        TEXT NOT NULL,
	description TEXT NOT NULL,
	price       INTEGER NOT NULL CHECK (price >= 0),
	currency    TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS skus (
	sku        TEXT PRIMARY KEY,
	product_id INTEGER NOT NULL REFERENCES products(id),
	colour     TEXT NOT NULL,
	size       TEXT NOT NULL,
	position   INTEGER NOT NULL,
	stock      INTEGER NOT NULL CHECK (stock >= 0)
);
CREATE TABLE IF NOT EXISTS users (
	id            INTEGER PRIMARY KEY,
	email         TEXT NOT NULL UNIQUE,
	name          TEXT NOT NULL,
	password_hash TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS sessions (
	id_hash    TEXT PRIMARY KEY,
	user_id    INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
	created_at INTEGER NOT NULL,
	expires_at INTEGER NOT NULL,
	flash      TEXT NOT NULL DEFAULT ''
);
CREATE TABLE IF NOT EXISTS tokens (
	id         INTEGER PRIMARY KEY,
	user_id    INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
	hash       TEXT NOT NULL UNIQUE,
	label      TEXT NOT NULL,
	created_at INTEGER NOT NULL,
	revoked_at INTEGER
);
CREATE TABLE IF NOT EXISTS carts (
	id         INTEGER PRIMARY KEY,
	user_id    INTEGER UNIQUE REFERENCES users(id) ON DELETE CASCADE,
	guest_hash TEXT UNIQUE,
	CHECK ((user_id IS NULL) <> (guest_hash IS NULL))
);
CREATE TABLE IF NOT EXISTS cart_items (
	cart_id INTEGER NOT NULL REFERENCES carts(id) ON DELETE CASCADE,
	sku     TEXT NOT NULL REFERENCES skus(sku),
	qty     INTEGER NOT NULL CHECK (qty BETWEEN 1 AND 10),
	PRIMARY KEY (cart_id, sku)
);
CREATE TABLE IF NOT EXISTS orders (
	id         INTEGER PRIMARY KEY,
	user_id    INTEGER NOT NULL REFERENCES users(id),
	status     TEXT NOT NULL CHECK (status IN ('placed', 'shipped', 'cancelled')),
	total      INTEGER NOT NULL,
	currency   TEXT NOT NULL,
	created_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS approvals (
	id         TEXT PRIMARY KEY,
	account    TEXT NOT NULL,
	page       TEXT NOT NULL,
	action     TEXT NOT NULL,
	input      TEXT NOT NULL,
	summary    TEXT NOT NULL,
	state      TEXT NOT NULL,
	expires_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS order_items (
	order_id INTEGER NOT NULL REFERENCES orders(id) ON DELETE CASCADE,
	sku      TEXT NOT NULL,
	name     TEXT NOT NULL,
	colour   TEXT NOT NULL,
	size     TEXT NOT NULL,
	qty      INTEGER NOT NULL,
	price    INTEGER NOT NULL,
	PRIMARY KEY (order_id, sku)
);
`
