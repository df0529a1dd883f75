package site_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/affordances-go/affordances/internal/syncbuf"
	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site"
	"github.com/affordances-go/affordances/site/ratelimit"
	"github.com/affordances-go/affordances/site/sitetest"
)

// The site every test of this package runs against, on sitetest. Its pages:
//
//   - /, /products/{slug}, /broken, /big, /agents/{path...}: reading
//     (graphs, HTML, negotiation, loaders that fail);
//   - /p/{slug}: calling (a tiny in-memory store with a cart and orders);
//   - /faults: actions that fail or panic on purpose, left out of the site
//     the fuzz targets run against, so that a fuzz failure is a defect.

// product is the state of the product page.
type product struct {
	Slug  string `json:"slug"`
	Name  string `json:"name"`
	Price int    `json:"price"`
	Stock int    `json:"stock"`
}

// addToCart is the input of every addToCart of the test site.
type addToCart struct {
	SKU string `json:"sku" description:"the SKU to add" pattern:"^[A-Z0-9-]+$"`
	Qty int    `json:"qty,omitempty" minimum:"1" maximum:"10" default:"1"`
}

type cartLine struct {
	SKU string `json:"sku"`
	Qty int    `json:"qty"`
}

type cartView struct {
	Lines map[string]int `json:"lines"`
	Count int            `json:"count"`
}

type placeOrderInput struct {
	Note string `json:"note,omitempty" maxLength:"100"`
}

func (in placeOrderInput) Summary(r *site.Request, st *site.State) string {
	return fmt.Sprintf("Place an order for %d item(s).", cartKey.Get(st).Count)
}

type formInputs struct {
	N     int      `json:"n" minimum:"0"`
	F     float64  `json:"f,omitempty"`
	B     bool     `json:"b"`
	Tags  []string `json:"tags,omitempty"`
	Sizes []int    `json:"sizes,omitempty"`
	Name  string   `json:"name,omitempty" minLength:"2"`
}

// The entities of the test site.
var (
	productKey = site.NewKey[product]("product")
	stockKey   = site.NewKey[map[string]any]("product") // the call page's product
	cartKey    = site.NewKey[cartView]("cart")
)

// testAuth signs in requests with the cookie "session=alice" or the bearer
// token "good"; other bearer tokens are rejected.
var testAuth = site.AuthFunc(func(r *http.Request) (site.Caller, error) {
	if tok, ok := site.BearerToken(r); ok {
		if tok != "good" {
			return site.Caller{}, site.ErrBadToken
		}
		return site.Caller{ID: "tok-1", Mode: protocol.AuthBearer, SignedIn: true}, nil
	}
	if c, err := r.Cookie("session"); err == nil {
		return site.Caller{ID: "sess-" + c.Value, Mode: protocol.AuthCookie, SignedIn: c.Value == "alice", User: c.Value}, nil
	}
	return site.Caller{}, nil
})

var productView = template.Must(template.New("product").Funcs(site.Funcs()).Parse(
	`<!doctype html><html><head><title>{{.Entities.product.Name}}</title>{{affordancesLink}}</head>` +
		`<body><h1>{{.Entities.product.Name}}</h1><p>{{.Entities.product.Price}}</p>` +
		`{{range .Actions}}<button{{if not .Available}} disabled{{end}}>{{.Name}}</button>{{end}}</body></html>`))

var shopView = template.Must(template.New("p").Funcs(site.Funcs()).Parse(
	`<html><head>{{affordancesLink}}</head><body><p>stock {{.Entities.product.stock}}</p>` +
		`{{if .Error}}<p class="error">{{.Error.Code}}: {{.Error.Message}}</p>{{end}}` +
		`{{actionForm . "addToCart"}}{{actionForm . "placeOrder"}}{{actionForm . "kinds"}}</body></html>`))

// fixture is the test site, its logs, its clock, and a client of it.
type fixture struct {
	site  *site.Site
	c     *sitetest.Client
	logs  *syncbuf.Buffer
	audit *syncbuf.Buffer
	clock *sitetest.Clock

	mu           sync.Mutex
	lastQuery    string // the raw query the product loader saw
	teeStock     int    // the stock of /products/tee
	stock        int    // the stock of /p/tee
	cart         map[string]int
	orders       int
	orderEntries int // how often placeOrder's handler was entered
	lastKinds    formInputs
}

// newFixture builds the test site with its faulty actions.
func newFixture(t testing.TB) *fixture { return buildFixture(t, true) }

// newFuzzFixture builds the test site without the actions that fail on
// purpose.
func newFuzzFixture(t testing.TB) *fixture { return buildFixture(t, false) }

func buildFixture(t testing.TB, faults bool) *fixture {
	f := &fixture{logs: &syncbuf.Buffer{}, audit: &syncbuf.Buffer{}, clock: sitetest.NewClock(),
		teeStock: 3, stock: 2, cart: map[string]int{}}
	s := site.New(site.Options{
		Name: "Fixture", Auth: testAuth,
		AuthModes:   []protocol.AuthMode{protocol.AuthCookie, protocol.AuthBearer},
		Logger:      slog.New(slog.NewTextHandler(f.logs, nil)),
		AuditLogger: slog.New(slog.NewJSONHandler(f.audit, nil)),
		Limits:      site.LimitOptions{Limiter: ratelimit.NewMemory(f.clock.Now), Default: ratelimit.PerMinute(1000, 1000)},
	})
	f.site = s
	f.c = sitetest.New(t, s)
	f.readPages()
	f.callPage()
	if faults {
		f.faultPage()
	}
	return f
}

// readPages registers the pages of the reading tests.
func (f *fixture) readPages() {
	s := f.site
	s.Page("/", site.PageOptions{
		Description: "The home page",
		Load: func(r *site.Request) (*site.State, error) {
			return withEntities(&site.State{Nav: []protocol.Nav{{To: "/products/tee", Label: "A tee"}}}, map[string]any{"greeting": "hello"}), nil
		},
		View: template.Must(template.New("home").Funcs(site.Funcs()).Parse(`<html><head>{{affordancesLink}}</head><body>{{.Entities.greeting}}</body></html>`)),
	})

	p := s.Page("/products/{slug}", site.PageOptions{
		Description: "One product with its price and stock",
		Load: func(r *site.Request) (*site.State, error) {
			f.mu.Lock()
			defer f.mu.Unlock()
			f.lastQuery = r.URL.RawQuery
			if r.PathValue("slug") != "tee" {
				return nil, site.ErrNotFound
			}
			st := &site.State{
				Nav: []protocol.Nav{{To: "/", Label: "Home"}, {To: "/cart", Label: "Cart", When: "after adding"}},
				MD:  "# Heavyweight tee\n\n29.00 EUR",
			}
			productKey.Set(st, product{Slug: "tee", Name: "Heavyweight tee", Price: 2900, Stock: f.teeStock})
			return st, nil
		},
		View: productView,
	})
	site.Handle(p, site.Action{
		Name: "addToCart", Description: "Put the product in the cart",
		Expose: protocol.ExposePublic, Effects: site.Effects(site.NewKey[any]("cart")),
		Guard: site.Guard{Text: "the product is in stock", Check: func(r *site.Request, st *site.State) (bool, string) {
			return productKey.Get(st).Stock > 0, "sold out"
		}},
	}, func(r *site.Request, in addToCart) (site.Result[cartLine], error) {
		return site.Result[cartLine]{Output: cartLine(in)}, nil
	})
	site.Handle(p, site.Action{
		Name: "review", Description: "Write a review", Expose: protocol.ExposeSession,
	}, func(r *site.Request, in struct {
		Text string `json:"text" minLength:"1"`
	}) (site.Done, error) {
		return site.Done{}, nil
	})
	site.Handle(p, site.Action{
		Name: "setPrice", Description: "Change the price (staff only)", Expose: protocol.ExposeSession,
		Visible: func(r *site.Request) bool { return r.Caller.User == "staff" },
	}, func(r *site.Request, in struct {
		Price int `json:"price" minimum:"0"`
	}) (site.Done, error) {
		return site.Done{}, nil
	})

	s.Page("/broken", site.PageOptions{
		Description: "A page whose loader fails",
		Load: func(r *site.Request) (*site.State, error) {
			return nil, errors.New("decoding the catalogue: unexpected EOF")
		},
		View: productView,
	})
	s.Page("/big", site.PageOptions{
		Description: "A page with a large graph",
		Load: func(r *site.Request) (*site.State, error) {
			return withEntities(&site.State{}, map[string]any{"text": strings.Repeat("x", 9000)}), nil
		},
	})
	s.Page("/agents/{path...}", site.PageOptions{Description: "A graph-only page"})
}

// callPage registers the page of the calling tests: a product with a
// stock, a cart and orders.
func (f *fixture) callPage() {
	p := f.site.Page("/p/{slug}", site.PageOptions{
		Description: "A product",
		View:        shopView,
		Load: func(r *site.Request) (*site.State, error) {
			if r.PathValue("slug") != "tee" {
				return nil, site.ErrNotFound
			}
			f.mu.Lock()
			defer f.mu.Unlock()
			lines := map[string]int{}
			n := 0
			for k, v := range f.cart {
				lines[k] = v
				n += v
			}
			st := withEntities(&site.State{}, map[string]any{"orders": f.orders})
			stockKey.Set(st, map[string]any{"stock": f.stock})
			cartKey.Set(st, cartView{Lines: lines, Count: n})
			return st, nil
		},
	})
	site.Handle(p, site.Action{
		Name: "addToCart", Description: "Add to the cart", Expose: protocol.ExposePublic, Effects: site.Effects(site.NewKey[any]("cart")),
		Guard: site.Guard{Text: "in stock", Check: func(r *site.Request, st *site.State) (bool, string) {
			return stockKey.Get(st)["stock"].(int) > 0, "sold out"
		}},
	}, func(r *site.Request, in addToCart) (site.Result[cartView], error) {
		if in.Qty == 0 {
			in.Qty = 1
		}
		f.mu.Lock()
		defer f.mu.Unlock()
		f.cart[in.SKU] += in.Qty
		return site.Result[cartView]{Output: cartView{Lines: map[string]int{in.SKU: f.cart[in.SKU]}, Count: in.Qty},
			Message: fmt.Sprintf("Added %d.", in.Qty)}, nil
	})
	site.Handle(p, site.Action{
		Name: "placeOrder", Description: "Order what is in the cart", Expose: protocol.ExposeConfirm,
		Guard: site.Guard{Text: "the cart is not empty", Check: func(r *site.Request, st *site.State) (bool, string) {
			return cartKey.Get(st).Count > 0, "the cart is empty"
		}},
	}, func(r *site.Request, in placeOrderInput) (site.Done, error) {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.orderEntries++
		f.orders++
		f.stock--
		clear(f.cart)
		return site.Done{Message: "Order placed.", Redirect: "/orders/1"}, nil
	})
	site.Handle(p, site.Action{Name: "decline", Description: "Declines", Expose: protocol.ExposePublic},
		func(r *site.Request, in struct{}) (site.Done, error) {
			r.SetCookie(&http.Cookie{Name: "half", Value: "done"})
			return site.Done{}, site.Unavailable("sold out in the meantime")
		})
	site.Handle(p, site.Action{Name: "forget", Description: "Removes a line of the cart", Expose: protocol.ExposePublic,
		Effects: site.Effects(site.NewKey[any]("cart"))},
		func(r *site.Request, in struct {
			SKU string `json:"sku"`
		}) (site.Done, error) {
			f.mu.Lock()
			defer f.mu.Unlock()
			if _, ok := f.cart[in.SKU]; !ok {
				return site.Done{}, site.NotFound("the cart has no line %s", in.SKU)
			}
			delete(f.cart, in.SKU)
			return site.Done{}, nil
		})
	site.Handle(p, site.Action{Name: "reserve", Description: "Reserves stock", Expose: protocol.ExposePublic},
		func(r *site.Request, in struct {
			Qty  int    `json:"qty" minimum:"1"`
			Note string `json:"note,omitempty"`
		}) (site.Done, error) {
			f.mu.Lock()
			defer f.mu.Unlock()
			var errs []error
			if in.Qty > f.stock {
				errs = append(errs, site.Invalid("/qty", fmt.Sprintf("only %d left", f.stock)))
			}
			if in.Note == "x" {
				errs = append(errs, site.Invalid("note", "say more"))
			}
			return site.Done{}, errors.Join(errs...)
		})
	site.Handle(p, site.Action{Name: "signIn", Description: "Sign in", Expose: protocol.ExposePublic},
		func(r *site.Request, in struct{}) (site.Done, error) {
			r.SetCookie(&http.Cookie{Name: "session", Value: "alice", Path: "/", HttpOnly: true})
			r.Caller = site.Caller{ID: "sess-alice", Mode: protocol.AuthCookie, SignedIn: true}
			return site.Done{Redirect: "/p/tee"}, nil
		})
	site.Handle(p, site.Action{Name: "restock", Description: "Adds stock (no effects declared)", Expose: protocol.ExposePublic},
		func(r *site.Request, in struct {
			N int `json:"n" minimum:"1"`
		}) (site.Done, error) {
			f.mu.Lock()
			defer f.mu.Unlock()
			f.stock += in.N
			return site.Done{}, nil
		})
	site.Handle(p, site.Action{Name: "never", Description: "Guard is always false", Expose: protocol.ExposePublic,
		Guard: site.Guard{Text: "never", Check: func(*site.Request, *site.State) (bool, string) { return false, "not today" }}},
		func(r *site.Request, in addToCart) (site.Done, error) {
			return site.Done{}, nil
		})
	site.Handle(p, site.Action{Name: "secret", Description: "Hidden", Expose: protocol.ExposePublic,
		Visible: func(*site.Request) bool { return false }},
		func(r *site.Request, in struct{}) (site.Done, error) {
			return site.Done{}, nil
		})
	one := ratelimit.Limit{Rate: 2, Per: time.Minute, Burst: 2}
	site.Handle(p, site.Action{Name: "ping", Description: "Limited", Expose: protocol.ExposePublic, Limit: &one},
		func(r *site.Request, in addToCart) (site.Done, error) {
			return site.Done{}, nil
		})
	site.Handle(p, site.Action{Name: "kinds", Description: "Takes every kind of form value", Expose: protocol.ExposePublic},
		func(r *site.Request, in formInputs) (site.Result[formInputs], error) {
			f.mu.Lock()
			f.lastKinds = in
			f.mu.Unlock()
			return site.Result[formInputs]{Output: in}, nil
		})
	site.Handle(p, site.Action{Name: "loose", Description: "Explicit schema that allows any property", Expose: protocol.ExposePublic,
		Input: json.RawMessage(`{"type":"object"}`)},
		func(r *site.Request, in addToCart) (site.Result[addToCart], error) {
			return site.Result[addToCart]{Output: in}, nil
		})
}

// faultPage registers actions and guards that fail on purpose: a panic,
// an error, and entities read with the wrong type.
func (f *fixture) faultPage() {
	p := f.site.Page("/faults", site.PageOptions{
		Description: "Actions that fail",
		View:        productView,
		Load: func(r *site.Request) (*site.State, error) {
			st := &site.State{}
			cartKey.Set(st, cartView{Count: 1})
			return st, nil
		},
	})
	site.Handle(p, site.Action{Name: "explode", Description: "Fails", Expose: protocol.ExposePublic},
		func(r *site.Request, in struct{}) (site.Done, error) {
			panic("database password is hunter2")
		})
	site.Handle(p, site.Action{Name: "fail", Description: "Fails with an error", Expose: protocol.ExposePublic},
		func(r *site.Request, in struct{}) (site.Done, error) {
			r.SetCookie(&http.Cookie{Name: "half", Value: "done"})
			return site.Done{}, errors.New("disk on fire at /var/db")
		})
}

const (
	agent = protocol.MediaType
	host  = sitetest.DefaultBase
)

// withEntities stores each entity of m in st under its name, as a page's
// keys would.
func withEntities(st *site.State, m map[string]any) *site.State {
	for name, v := range m {
		site.NewKey[any](name).Set(st, v)
	}
	return st
}
