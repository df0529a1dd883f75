package shop

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/affordances-go/affordances/site/tokens"
)

// Store is the shop's data: catalog, carts, orders, accounts. Every method
// that writes does so in one transaction, so a call either fully happens or
// not at all.
type Store struct {
	db  conn // the store's queries
	raw *DB  // for transactions
	// PasswordIterations is the PBKDF2-SHA256 work factor for new password
	// hashes. Verification reads the factor stored with each hash.
	PasswordIterations int
	// Logger receives what the store's work in the background logs: the
	// idempotency deltas it writes behind the answers, and its sweeps.
	// Nil logs to slog.Default().
	Logger          *slog.Logger
	now             func() time.Time
	keys            *IdempotencyKeys
	catalog         sync.Map     // slug -> *catalogEntry: what Product read of the catalog
	sessionsSwept   atomic.Int64 // when ForgetExpiredSessions last ran for a sign-in, Unix ms
	cartsSwept      atomic.Int64 // when ForgetAbandonedGuestCarts last ran for a guest's add, Unix ms
	challengesSwept atomic.Int64 // when ForgetExpiredChallenges last ran for a new challenge, Unix ms
	toks            *tokens.SQL  // the token kit's table (tokens.go)
	sweepMu         sync.Mutex   // guards closed, and sweeps.Add against Close's Wait
	closed          bool         // Close ran: no more sweeps
	sweeps          sync.WaitGroup
	kit             *tokens.Kit // the token kit over it, writing in the store's transactions
}

// log is the store's Logger, or slog's default.
func (s *Store) log() *slog.Logger {
	if s.Logger != nil {
		return s.Logger
	}
	return slog.Default()
}

// Ping reports whether the database answers.
func (s *Store) Ping(ctx context.Context) error { return s.raw.PingContext(ctx) }

// NewStore returns a store over an open database (see Open).
func NewStore(db *DB) *Store {
	s := &Store{db: conn{db}, raw: db, PasswordIterations: 600_000, now: time.Now}
	s.keys = &IdempotencyKeys{s: s}
	s.toks = tokenStore(db)
	s.kit = tokens.New(s.toks, tokens.Options{
		Actions: tokenChoices, Standing: standingOffer, Now: func() time.Time { return s.now() },
		// Making and revoking a token commit with the call's
		// Idempotency-Key, as every write of the store does.
		Write: func(ctx context.Context, f func(tokens.Store) error) error {
			return s.tx(ctx, func(tx *Tx) error { return f(s.toks.Tx(tx.tx)) })
		},
		Reveal: sessionReveal{s},
	})
	return s
}

// ErrNotFound is returned for a product, order or token that does not
// exist (or does not belong to the caller).
var ErrNotFound = errors.New("shop: not found")

// Money is an amount in minor units (cents) with its ISO 4217 currency.
type Money struct {
	Amount   int64  `json:"amount"`
	Currency string `json:"currency"`
}

// String formats the amount for people: "29.00 EUR".
func (m Money) String() string {
	sign := ""
	a := m.Amount
	if a < 0 {
		sign, a = "-", -a
	}
	return fmt.Sprintf("%s%d.%02d %s", sign, a/100, a%100, m.Currency)
}

// tx runs f in a transaction that also writes the call's Idempotency-Key,
// if it has one: the key and the action's writes commit together, or
// neither does.
func (s *Store) tx(ctx context.Context, f func(*Tx) error) error {
	return s.txWithoutKey(ctx, func(tx *Tx) error {
		if err := f(tx); err != nil {
			return err
		}
		// The call's Idempotency-Key commits with its writes (idempotency.go).
		return commitKey(ctx, tx)
	})
}

// txWithoutKey runs f in a transaction that does not write the call's
// Idempotency-Key: for what a call does before its action (taking a
// challenge of presence), which must not claim the key for the action.
// Inside a call's transaction (Store.Transact), f runs in it: its writes
// commit with the rest of the call.
func (s *Store) txWithoutKey(ctx context.Context, f func(*Tx) error) error {
	if outer := callTx(ctx, s.raw); outer != nil {
		return f(outer)
	}
	t, err := s.raw.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	tx := &Tx{tx: t, db: s.raw}
	defer func() {
		tx.ended.Store(true)
		s.raw.prepareLater(ctx, tx.misses)
	}()
	if err := f(tx); err != nil {
		t.Rollback()
		return err
	}
	return t.Commit()
}

// exec runs one write in its own transaction (tx), so that the call's
// Idempotency-Key commits with it: every write an action makes goes
// through tx or exec, and a repeat of a keyed call fails at its first
// write (errKeyLost) before anything of it is kept.
func (s *Store) exec(ctx context.Context, q string, args ...any) error {
	return s.tx(ctx, func(tx *Tx) error {
		_, err := tx.ExecContext(ctx, q, args...)
		return err
	})
}

// ProductSummary is a product as the catalog lists it.
type ProductSummary struct {
	Slug    string `json:"slug"`
	Name    string `json:"name"`
	Price   Money  `json:"price"`
	InStock bool   `json:"inStock"`
}

// Catalog returns one page of the products matching q (all when q is
// empty), and how many match in all.
func (s *Store) Catalog(ctx context.Context, q string, offset, limit int) ([]ProductSummary, int, error) {
	like := "%" + strings.NewReplacer(`\`, `\\`, "%", `\%`, "_", `\_`).Replace(strings.ToLower(q)) + "%"
	var total int
	err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM products WHERE lower(name) LIKE ? ESCAPE '\' OR lower(description) LIKE ? ESCAPE '\'`, like, like).Scan(&total)
	if err != nil {
		return nil, 0, fmt.Errorf("counting products: %w", err)
	}
	rows, err := s.db.QueryContext(ctx, `
		SELECT p.slug, p.name, p.price, p.currency, coalesce((SELECT max(stock) FROM skus WHERE product_id = p.id), 0) > 0
		FROM products p
		WHERE lower(p.name) LIKE ? ESCAPE '\' OR lower(p.description) LIKE ? ESCAPE '\'
		ORDER BY p.id LIMIT ? OFFSET ?`, like, like, limit, offset)
	if err != nil {
		return nil, 0, fmt.Errorf("listing products: %w", err)
	}
	defer rows.Close()
	out := []ProductSummary{}
	for rows.Next() {
		var p ProductSummary
		if err := rows.Scan(&p.Slug, &p.Name, &p.Price.Amount, &p.Price.Currency, &p.InStock); err != nil {
			return nil, 0, err
		}
		out = append(out, p)
	}
	return out, total, rows.Err()
}

// Product is one product with its variants.
type Product struct {
	Slug        string    `json:"slug"`
	Name        string    `json:"name"`
	Description string    `json:"description"`
	Price       Money     `json:"price"`
	Variants    []Variant `json:"variants"`
}

// Variant is one colour and size of a product, with its own stock.
type Variant struct {
	SKU    string `json:"sku"`
	Colour string `json:"colour"`
	Size   string `json:"size"`
	Stock  int    `json:"stock"`
}

// InStock reports whether any variant can be bought.
func (p *Product) InStock() bool {
	for _, v := range p.Variants {
		if v.Stock > 0 {
			return true
		}
	}
	return false
}

// Variant returns the variant with the given SKU, or nil.
func (p *Product) Variant(sku string) *Variant {
	for i := range p.Variants {
		if p.Variants[i].SKU == sku {
			return &p.Variants[i]
		}
	}
	return nil
}

// Product returns the product with the given slug, with each variant's
// stock as the database has it now. What the catalog says of a product
// (its name, description, price, colours and sizes) changes only when the
// store is seeded, so it is read once a minute at most (catalogTTL) and
// only the stock on every call: one query instead of two on the store's
// busiest read, the guard of addToCart.
func (s *Store) Product(ctx context.Context, slug string) (*Product, error) {
	if v, ok := s.catalog.Load(slug); ok {
		if e := v.(*catalogEntry); s.now().Before(e.until) {
			p, fresh, err := s.withStock(ctx, e)
			if err != nil || fresh {
				return p, err
			}
		}
	}
	e, err := s.readProduct(ctx, slug)
	if err != nil {
		return nil, err
	}
	s.catalog.Store(slug, e)
	return e.product(nil), nil
}

// ProductExists reports whether a product with this slug is in the
// catalog, as the product page's existence check (site's
// PageOptions.Exists): from the catalog's cache when it holds the slug
// (the store never deletes a product, so an entry past its time still
// proves it), else with the one indexed read that also fills the cache.
// ErrNotFound when there is none. So a call reaches the database first in
// its own transaction, as before, whose failure the site answers 503.
func (s *Store) ProductExists(ctx context.Context, slug string) error {
	if _, ok := s.catalog.Load(slug); ok {
		return nil
	}
	e, err := s.readProduct(ctx, slug)
	if err != nil {
		return err
	}
	s.catalog.Store(slug, e)
	return nil
}

// catalogTTL is how long a product's catalog entry is kept.
const catalogTTL = time.Minute

// catalogEntry is a product as the catalog describes it, with the stock
// read with it.
type catalogEntry struct {
	id    int64
	p     Product
	until time.Time
}

// product returns a copy of the entry's product, with stock (one number
// per variant, in order) when given.
func (e *catalogEntry) product(stock []int) *Product {
	p := e.p
	p.Variants = slices.Clone(e.p.Variants)
	for i := range stock {
		p.Variants[i].Stock = stock[i]
	}
	return &p
}

// withStock returns the entry's product with the stock the database has
// now; fresh is false when its SKUs are not the entry's, and the product
// must be read again.
func (s *Store) withStock(ctx context.Context, e *catalogEntry) (_ *Product, fresh bool, _ error) {
	// One row, "SKU:stock,SKU:stock" in no particular order: a product
	// page and every addToCart's guard read it, and one row costs the
	// driver far less than a row per variant; an order asked of the
	// aggregate would cost the database a sort on every read. (SKUs hold
	// neither : nor ,.)
	var list sql.NullString
	err := s.db.QueryRowContext(ctx, `SELECT string_agg(sku || ':' || stock, ',') FROM skus WHERE product_id = ?`, e.id).Scan(&list)
	if err != nil {
		return nil, false, fmt.Errorf("reading the stock of %q: %w", e.p.Slug, err)
	}
	stock := make([]int, len(e.p.Variants))
	seen := 0
	for item := range strings.SplitSeq(list.String, ",") {
		sku, n, ok := strings.Cut(item, ":")
		i := slices.IndexFunc(e.p.Variants, func(v Variant) bool { return v.SKU == sku })
		if !ok || i < 0 {
			return nil, false, nil // a size the entry does not know
		}
		v, err := strconv.Atoi(n)
		if err != nil {
			return nil, false, fmt.Errorf("reading the stock of %q: %q: %w", e.p.Slug, item, err)
		}
		stock[i] = v
		seen++
	}
	if seen != len(e.p.Variants) {
		return nil, false, nil // a size the entry knows is gone
	}
	return e.product(stock), true, nil
}

// readProduct reads a product and its variants.
func (s *Store) readProduct(ctx context.Context, slug string) (*catalogEntry, error) {
	e := &catalogEntry{until: s.now().Add(catalogTTL)}
	p := &e.p
	err := s.db.QueryRowContext(ctx, `SELECT id, slug, name, description, price, currency FROM products WHERE slug = ?`, slug).
		Scan(&e.id, &p.Slug, &p.Name, &p.Description, &p.Price.Amount, &p.Price.Currency)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("reading product %q: %w", slug, err)
	}
	rows, err := s.db.QueryContext(ctx, `SELECT sku, colour, size, stock FROM skus WHERE product_id = ? ORDER BY position`, e.id)
	if err != nil {
		return nil, fmt.Errorf("reading variants of %q: %w", slug, err)
	}
	defer rows.Close()
	for rows.Next() {
		var v Variant
		if err := rows.Scan(&v.SKU, &v.Colour, &v.Size, &v.Stock); err != nil {
			return nil, err
		}
		p.Variants = append(p.Variants, v)
	}
	return e, rows.Err()
}

// Stock returns the stock of one SKU.
func (s *Store) Stock(ctx context.Context, sku string) (int, error) {
	var n int
	err := s.db.QueryRowContext(ctx, `SELECT stock FROM skus WHERE sku = ?`, sku).Scan(&n)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, ErrNotFound
	}
	return n, err
}
