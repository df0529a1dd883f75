// Package docs_test holds the code of the guides in this folder, so that it
// compiles, and checks that every Go block of docs/server.md is this code.
package docs_test

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"html/template"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/affordances-go/affordances/internal/doccheck"
	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site"
	"github.com/affordances-go/affordances/site/ratelimit"
	"github.com/affordances-go/affordances/site/sitetest"
)

// The application the guide's fragments talk to.
type (
	Product struct {
		Name     string
		Variants []Variant
	}
	Variant struct {
		SKU   string
		Stock int
	}
	CartLine struct {
		SKU string `json:"sku"`
		Qty int    `json:"qty"`
	}
	Cart struct {
		Count int    `json:"count"`
		Total string `json:"total"`
	}
	User    struct{ TokenID, Name string }
	Session struct {
		ID     string
		UserID int
	}
)

var (
	ErrSoldOut = errors.New("sold out")
	ErrNoStock = errors.New("not enough stock")
	carts      cartStore
	tokens     tokenStore
	sessions   sessionStore
)

type cartStore struct{}

func (cartStore) Add(ctx context.Context, owner string, sku string, qty int) (CartLine, error) {
	return CartLine{SKU: sku, Qty: qty}, nil
}

type tokenStore struct{}

func (tokenStore) Lookup(ctx context.Context, tok string) (*User, error) {
	if tok != "good" {
		return nil, errors.New("no such token")
	}
	return &User{TokenID: "1"}, nil
}

type sessionStore struct{}

func (sessionStore) From(r *http.Request) (*Session, bool) {
	c, err := r.Cookie("sid")
	if err != nil {
		return nil, false
	}
	return &Session{ID: c.Value, UserID: 1}, true
}

func cartOf(r *site.Request) string { return r.Caller.ID }

func (p *Product) StockOf(sku string) int {
	for _, v := range p.Variants {
		if v.SKU == sku {
			return v.Stock
		}
	}
	return 0
}

// --- the guide's fragments, in the order of docs/server.md ---

var ProductKey = site.NewKey[*Product]("product")
var CartKey = site.NewKey[Cart]("cart")

type AddToCart struct {
	SKU string `json:"sku" title:"Size" description:"the size to add, such as TEE-BLK-M" pattern:"^[A-Z0-9-]+$"`
	Qty int    `json:"qty,omitempty" title:"Quantity" minimum:"1" maximum:"10" default:"1"`
}

func anySizeInStock(r *site.Request, st *site.State) (bool, string) {
	for _, v := range ProductKey.Get(st).Variants {
		if v.Stock > 0 {
			return true, ""
		}
	}
	return false, "sold out in every size"
}

func registerAddToCart(product *site.Page) {
	site.Handle(product, site.Action{
		Name:        "addToCart",
		Description: "Put one size of this product in the cart",
		Expose:      protocol.ExposePublic,
		Effects:     site.Effects(CartKey),
		Guard:       site.Guard{Text: "the product is in stock", Check: anySizeInStock},
	}, func(r *site.Request, in AddToCart) (site.Result[CartLine], error) {
		line, err := carts.Add(r.Context(), cartOf(r), in.SKU, max(in.Qty, 1))
		switch {
		case errors.Is(err, ErrSoldOut):
			return site.Result[CartLine]{}, site.Unavailable("that size sold out a moment ago")
		case errors.Is(err, ErrNoStock):
			return site.Result[CartLine]{}, site.Invalid("/qty", "there are not that many left")
		case err != nil:
			return site.Result[CartLine]{}, fmt.Errorf("adding to cart: %w", err)
		}
		return site.Result[CartLine]{Output: line, Message: "Added to your cart."}, nil
	})
}

func (in AddToCart) Guard(r *site.Request, st *site.State) (bool, string) {
	if ProductKey.Get(st).StockOf(in.SKU) == 0 {
		return false, "that size is out of stock"
	}
	return true, ""
}

type PlaceOrder struct{}

func (in PlaceOrder) Summary(r *site.Request, st *site.State) string {
	c := CartKey.Get(st)
	return fmt.Sprintf("Place an order for %d items, total %s.", c.Count, c.Total)
}

var auth = site.AuthFunc(func(r *http.Request) (site.Caller, error) {
	if tok, ok := site.BearerToken(r); ok {
		u, err := tokens.Lookup(r.Context(), tok)
		if err != nil {
			return site.Caller{}, site.ErrBadToken // 401, never a fall back to the cookie
		}
		return site.Caller{ID: "tok:" + u.TokenID, Mode: protocol.AuthBearer, SignedIn: true, User: u}, nil
	}
	if sess, ok := sessions.From(r); ok {
		return site.Caller{ID: "sess:" + sess.ID, Mode: protocol.AuthCookie, SignedIn: sess.UserID != 0, User: sess}, nil
	}
	return site.Caller{}, nil // anonymous
})

func registerSignIn(login *site.Page, signIn site.Handler[struct{}, site.NoOutput]) {
	site.Handle(login, site.Action{
		Name: "signIn", Expose: protocol.ExposePublic,
		Limit: &ratelimit.Limit{Rate: 5, Per: time.Minute, Burst: 5},
	}, signIn)
}

func TestAddToCart(t *testing.T) {
	clock := sitetest.NewClock()
	s := site.New(site.Options{Auth: auth, Limits: site.LimitOptions{Limiter: ratelimit.NewMemory(clock.Now)}, Logger: slog.New(slog.DiscardHandler)})
	product := s.Page("/products/{slug}", site.PageOptions{
		Load: func(r *site.Request) (*site.State, error) {
			st := &site.State{}
			ProductKey.Set(st, &Product{Name: "Tee", Variants: []Variant{{"TEE-M", 2}, {"TEE-L", 0}}})
			return st, nil
		},
	})
	registerAddToCart(product)

	c := sitetest.New(t, s)
	res := c.Call("/products/tee", "addToCart", AddToCart{SKU: "TEE-M", Qty: 2})
	if res.ErrorCode() != "ok" {
		t.Fatalf("addToCart: %s", res.Body)
	}
	res = c.Call("/products/tee", "addToCart", AddToCart{SKU: "TEE-L"})
	if res.ErrorCode() != "unavailable" || res.Delta().Error.Message != "that size is out of stock" {
		t.Errorf("sold-out size: %s", res.Body)
	}
}

// The guide's sign-in registration lists signIn on the page.
func TestRegisterSignIn(t *testing.T) {
	s := site.New(site.Options{Auth: auth, Logger: slog.New(slog.DiscardHandler)})
	login := s.Page("/login", site.PageOptions{})
	registerSignIn(login, func(r *site.Request, _ struct{}) (site.Result[site.NoOutput], error) {
		return site.Result[site.NoOutput]{Message: "Signed in."}, nil
	})
	g := sitetest.New(t, s).Graph("/login")
	if len(g.Actions) != 1 || g.Actions[0].Name != "signIn" {
		t.Errorf("actions: %+v", g.Actions)
	}
}

func registerCreateToken(account *site.Page, createToken site.Handler[struct{}, site.NoOutput]) {
	site.Handle(account, site.Action{Name: "createToken", Expose: protocol.ExposeSession,
		PeopleOnly: true}, createToken)
}

// The guide's people-only action is in no graph, and an agent is refused.
func TestRegisterCreateToken(t *testing.T) {
	s := site.New(site.Options{Auth: auth, Logger: slog.New(slog.DiscardHandler)})
	account := s.Page("/account", site.PageOptions{})
	registerCreateToken(account, func(r *site.Request, _ struct{}) (site.Result[site.NoOutput], error) {
		return site.Result[site.NoOutput]{Message: "Token created."}, nil
	})
	c := sitetest.New(t, s)
	if g := c.Graph("/account"); len(g.Actions) != 0 {
		t.Errorf("a people-only action in the graph: %+v", g.Actions)
	}
	if res := c.CallBody("/account", `{"action":"createToken"}`, sitetest.Header("Authorization", "Bearer good")); res.Code != 403 {
		t.Errorf("an agent's call: %d %s", res.Code, res.Body)
	}
}

// loadProduct is the loader an existing application already has.
func loadProduct(r *site.Request) (*site.State, error) {
	st := &site.State{}
	ProductKey.Set(st, &Product{Name: r.PathValue("slug")})
	return st, nil
}

func wrapExisting(existingMux http.Handler) http.Handler {
	s := site.New(site.Options{Name: "Shop", Auth: auth})
	s.Page("/products/{slug}", site.PageOptions{
		Description: "One product",
		Load:        loadProduct, // the function your own handler already calls
	})
	return s.Wrap(existingMux)
}

const handWrittenForm = `
<form method="post">
  {{actionField "addToCart"}}
  <label for="sku">Size</label>
  <select id="sku" name="sku">…</select>
  <button>Add to cart</button>
</form>
`

func TestWrapAndHandWrittenForm(t *testing.T) {
	app := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("app")) })
	c := sitetest.New(t, wrapExisting(app))
	if g := c.Graph("/products/tee"); ProductKey.Name() != "product" || g.Entities["product"] == nil {
		t.Errorf("graph %+v", g)
	}
	if res := c.Get("/products/tee"); res.Body.String() != "app" {
		t.Errorf("a browser did not reach the application: %s", res.Body)
	}
	if _, err := template.New("").Funcs(site.Funcs()).Parse(handWrittenForm); err != nil {
		t.Error(err)
	}
}

// --- one transaction for the whole call ---

// DB is an application's database handle, as the Transact fragment has it.
type DB struct{ *sql.DB }

type txKey struct{}

func (db *DB) Transact(ctx context.Context, fn func(context.Context) error) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(context.WithValue(ctx, txKey{}, tx)); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

// transactPage is the fragment's page, its loader given.
func transactPage(s *site.Site, db *DB, productKey site.Key[*Product], loadProduct func(*site.Request) (*Product, error)) *site.Page {
	p := s.Page("/products/{slug}", site.PageOptions{
		Entities: []site.EntityLoader{site.Entity(productKey, loadProduct)},
		Transact: db.Transact,
	})
	return p
}

// The Transact fragment's page runs a call in one transaction of its
// database: committed when the call succeeds, rolled back when its guard
// refuses it; reading the page begins none.
func TestTransactPage(t *testing.T) {
	var log txLog
	db := &DB{sql.OpenDB(&log)}
	defer db.Close()
	stock := 1
	s := site.New(site.Options{Name: "Shop", Logger: slog.New(slog.DiscardHandler)})
	p := transactPage(s, db, ProductKey, func(r *site.Request) (*Product, error) {
		if _, ok := r.Context().Value(txKey{}).(*sql.Tx); !ok && r.Method == http.MethodPost {
			t.Error("a call's loader ran outside the transaction")
		}
		return &Product{Name: "Tee", Variants: []Variant{{SKU: "TEE", Stock: stock}}}, nil
	})
	site.Handle(p, site.Action{Name: "take", Description: "Take one", Expose: protocol.ExposePublic,
		Effects: site.Effects(ProductKey),
		Guard: site.Guard{Text: "in stock", Check: func(r *site.Request, st *site.State) (bool, string) {
			return ProductKey.Get(st).Variants[0].Stock > 0, "sold out"
		}}},
		func(r *site.Request, in struct{}) (site.Done, error) {
			if _, ok := r.Context().Value(txKey{}).(*sql.Tx); !ok {
				t.Error("the action ran outside the transaction")
			}
			stock--
			return site.Done{}, nil
		})
	c := sitetest.New(t, s)
	if g := c.Graph("/products/tee"); g.Entities["product"] == nil || log.String() != "" {
		t.Errorf("graph %+v, transactions %q", g, log.String())
	}
	if w := c.CallBody("/products/tee", `{"action":"take"}`); w.Code != 200 || log.String() != "begin commit " {
		t.Errorf("a call that succeeded: %d, transactions %q", w.Code, log.String())
	}
	if w := c.CallBody("/products/tee", `{"action":"take"}`); w.Code != 409 || log.String() != "begin commit begin rollback " {
		t.Errorf("a call its guard refused: %d, transactions %q", w.Code, log.String())
	}
}

// txLog is a database/sql driver with no data that logs its
// transactions: enough to see where a call begins and ends one.
type txLog struct {
	mu  sync.Mutex
	log strings.Builder
}

func (l *txLog) add(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.log.WriteString(s + " ")
}

func (l *txLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.log.String()
}

func (l *txLog) Connect(context.Context) (driver.Conn, error) { return txConn{l}, nil }
func (l *txLog) Driver() driver.Driver                        { return nil }

type txConn struct{ l *txLog }

func (c txConn) Prepare(string) (driver.Stmt, error) { return nil, errors.New("no statements") }
func (c txConn) Close() error                        { return nil }
func (c txConn) Begin() (driver.Tx, error)           { c.l.add("begin"); return c, nil }
func (c txConn) Commit() error                       { c.l.add("commit"); return nil }
func (c txConn) Rollback() error                     { c.l.add("rollback"); return nil }

// --- the check that the guide shows this code ---

// TestServerGuide_GoBlocksAreCompiledCode fails when a Go block of
// server.md, or of actions.md and calls.md that continue it, is not, line
// for line, in this file or in the todo example.
func TestServerGuide_GoBlocksAreCompiledCode(t *testing.T) {
	for guide, blocks := range map[string]int{"server.md": 5, "actions.md": 7, "calls.md": 4} {
		doccheck.BlocksAreIn(t, guide, []string{"go", "html"}, blocks,
			"server_test.go", "chi_test.go", "../examples/todo/main.go", "../examples/todo/page.html", "../examples/todo/main_test.go")
	}
}
