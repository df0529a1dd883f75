package site_test

import (
	"bytes"
	"html/template"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site"
)

// product is the state of the fixture's product page.
type product struct {
	Slug  string `json:"slug"`
	Name  string `json:"name"`
	Price int    `json:"price"`
	Stock int    `json:"stock"`
}

type addToCart struct {
	SKU string `json:"sku" description:"the SKU to add" pattern:"^[A-Z0-9-]+$"`
	Qty int    `json:"qty,omitempty" minimum:"1" maximum:"10" default:"1"`
}

type cartLine struct {
	SKU string `json:"sku"`
	Qty int    `json:"qty"`
}

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

type fixture struct {
	site *site.Site
	logs *bytes.Buffer

	mu        sync.Mutex
	lastQuery string // the raw query the product loader saw
	stock     int
}

func newFixture(t testing.TB) *fixture {
	f := &fixture{logs: &bytes.Buffer{}, stock: 3}
	logger := slog.New(slog.NewTextHandler(&lockedWriter{w: f.logs}, nil))
	s := site.New(site.Options{Name: "Fixture", Auth: testAuth,
		AuthModes: []protocol.AuthMode{protocol.AuthCookie, protocol.AuthBearer}, Logger: logger})
	f.site = s

	s.Page("/", site.PageOptions{
		Description: "The home page",
		Load: func(r *site.Request) (*site.State, error) {
			return &site.State{Entities: map[string]any{"greeting": "hello"},
				Nav: []protocol.Nav{{To: "/products/tee", Label: "A tee"}}}, nil
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
			return &site.State{
				Entities: map[string]any{"product": product{Slug: "tee", Name: "Heavyweight tee", Price: 2900, Stock: f.stock}},
				Nav:      []protocol.Nav{{To: "/", Label: "Home"}, {To: "/cart", Label: "Cart", When: "after adding"}},
				MD:       "# Heavyweight tee\n\n29.00 EUR",
			}, nil
		},
		View: productView,
	})
	site.Handle(p, site.Action{
		Name: "addToCart", Description: "Put the product in the cart",
		Expose: protocol.ExposePublic, Effects: []string{"cart"},
		Guard: site.Guard{Text: "the product is in stock", Check: func(r *site.Request, st *site.State) (bool, string) {
			if st.Entities["product"].(product).Stock == 0 {
				return false, "sold out"
			}
			return true, ""
		}},
	}, func(r *site.Request, in addToCart) (site.Result[cartLine], error) {
		return site.Result[cartLine]{Output: cartLine{in.SKU, in.Qty}}, nil
	})
	site.Handle(p, site.Action{
		Name: "review", Description: "Write a review", Expose: protocol.ExposeSession,
	}, func(r *site.Request, in struct {
		Text string `json:"text" minLength:"1"`
	}) (site.Result[site.NoOutput], error) {
		return site.Result[site.NoOutput]{}, nil
	})
	site.Handle(p, site.Action{
		Name: "setPrice", Description: "Change the price (staff only)", Expose: protocol.ExposeSession,
		Visible: func(r *site.Request) bool { return r.Caller.User == "staff" },
	}, func(r *site.Request, in struct {
		Price int `json:"price" minimum:"0"`
	}) (site.Result[site.NoOutput], error) {
		return site.Result[site.NoOutput]{}, nil
	})

	s.Page("/broken", site.PageOptions{
		Description: "A page whose loader fails",
		Load:        func(r *site.Request) (*site.State, error) { return nil, io.ErrUnexpectedEOF },
		View:        productView,
	})
	s.Page("/big", site.PageOptions{
		Description: "A page with a large graph",
		Load: func(r *site.Request) (*site.State, error) {
			return &site.State{Entities: map[string]any{"text": strings.Repeat("x", 9000)}}, nil
		},
	})
	s.Page("/agents/{path...}", site.PageOptions{Description: "A graph-only page"})
	return f
}

type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// get sends a request through h and returns the recorded response.
func do(h http.Handler, method, target string, header ...string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(method, target, nil)
	for i := 0; i+1 < len(header); i += 2 {
		r.Header.Add(header[i], header[i+1])
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

const agent = "application/vnd.affordances+json"

func isGraph(w *httptest.ResponseRecorder) bool {
	return w.Header().Get("Content-Type") == protocol.MediaType
}
