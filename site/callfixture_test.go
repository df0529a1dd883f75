package site_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site"
	"github.com/affordances-go/affordances/site/ratelimit"
)

// shop is a tiny in-memory store behind the call tests.
type shop struct {
	site  *site.Site
	logs  *bytes.Buffer
	audit *bytes.Buffer
	clock *fakeClock

	mu           sync.Mutex
	stock        int
	cart         map[string]int
	orders       int
	orderEntries int // how often placeOrder's handler was entered
	lastKinds    formInputs
}

type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *fakeClock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

type cartView struct {
	Lines map[string]int `json:"lines"`
	Count int            `json:"count"`
}

type addInput struct {
	SKU string `json:"sku" description:"SKU" pattern:"^[A-Z0-9-]+$"`
	Qty int    `json:"qty,omitempty" minimum:"1" maximum:"10" default:"1"`
}

type placeOrderInput struct {
	Note string `json:"note,omitempty" maxLength:"100"`
}

func (in placeOrderInput) Summary(r *site.Request, st *site.State) string {
	c := st.Entities["cart"].(cartView)
	return fmt.Sprintf("Place an order for %d item(s).", c.Count)
}

type formInputs struct {
	N     int      `json:"n" minimum:"0"`
	F     float64  `json:"f,omitempty"`
	B     bool     `json:"b"`
	Tags  []string `json:"tags,omitempty"`
	Sizes []int    `json:"sizes,omitempty"`
	Name  string   `json:"name,omitempty" minLength:"2"`
}

var shopView = template.Must(template.New("p").Funcs(site.Funcs()).Parse(
	`<html><head>{{affordancesLink}}</head><body><p>stock {{.Entities.product.stock}}</p>` +
		`{{if .Error}}<p class="error">{{.Error.Code}}: {{.Error.Message}}</p>{{end}}` +
		`{{actionForm . "addToCart"}}{{actionForm . "placeOrder"}}{{actionForm . "kinds"}}</body></html>`))

func newShop(t testing.TB) *shop {
	sh := &shop{logs: &bytes.Buffer{}, audit: &bytes.Buffer{}, stock: 2, cart: map[string]int{},
		clock: &fakeClock{t: time.Unix(1_000_000, 0)}}
	s := site.New(site.Options{
		Name: "Shop", Auth: testAuth,
		Logger:       slog.New(slog.NewTextHandler(&lockedWriter{w: sh.logs}, nil)),
		AuditLogger:  slog.New(slog.NewJSONHandler(&lockedWriter{w: sh.audit}, nil)),
		Limiter:      ratelimit.NewMemory(sh.clock.now),
		DefaultLimit: ratelimit.PerMinute(1000, 1000),
	})
	sh.site = s
	p := s.Page("/p/{slug}", site.PageOptions{
		Description: "A product",
		View:        shopView,
		Load: func(r *site.Request) (*site.State, error) {
			if r.PathValue("slug") != "tee" {
				return nil, site.ErrNotFound
			}
			sh.mu.Lock()
			defer sh.mu.Unlock()
			lines := map[string]int{}
			n := 0
			for k, v := range sh.cart {
				lines[k] = v
				n += v
			}
			return &site.State{Entities: map[string]any{
				"product": map[string]any{"stock": sh.stock},
				"cart":    cartView{Lines: lines, Count: n},
				"orders":  sh.orders,
			}}, nil
		},
	})
	site.Handle(p, site.Action{
		Name: "addToCart", Description: "Add to the cart", Expose: protocol.ExposePublic, Effects: []string{"cart"},
		Guard: site.Guard{Text: "in stock", Check: func(r *site.Request, st *site.State) (bool, string) {
			return st.Entities["product"].(map[string]any)["stock"].(int) > 0, "sold out"
		}},
	}, func(r *site.Request, in addInput) (site.Result[cartView], error) {
		if in.Qty == 0 {
			in.Qty = 1
		}
		sh.mu.Lock()
		defer sh.mu.Unlock()
		sh.cart[in.SKU] += in.Qty
		return site.Result[cartView]{Output: cartView{Lines: map[string]int{in.SKU: sh.cart[in.SKU]}, Count: in.Qty},
			Message: fmt.Sprintf("Added %d.", in.Qty)}, nil
	})
	site.Handle(p, site.Action{
		Name: "placeOrder", Description: "Order what is in the cart", Expose: protocol.ExposeConfirm,
		Guard: site.Guard{Text: "the cart is not empty", Check: func(r *site.Request, st *site.State) (bool, string) {
			return st.Entities["cart"].(cartView).Count > 0, "the cart is empty"
		}},
	}, func(r *site.Request, in placeOrderInput) (site.Result[site.NoOutput], error) {
		sh.mu.Lock()
		defer sh.mu.Unlock()
		sh.orderEntries++
		sh.orders++
		sh.stock--
		clear(sh.cart)
		return site.Result[site.NoOutput]{Message: "Order placed.", Redirect: "/orders/1"}, nil
	})
	site.Handle(p, site.Action{Name: "explode", Description: "Fails", Expose: protocol.ExposePublic},
		func(r *site.Request, in struct{}) (site.Result[site.NoOutput], error) {
			panic("database password is hunter2")
		})
	site.Handle(p, site.Action{Name: "fail", Description: "Fails with an error", Expose: protocol.ExposePublic},
		func(r *site.Request, in struct{}) (site.Result[site.NoOutput], error) {
			r.SetCookie(&http.Cookie{Name: "half", Value: "done"})
			return site.Result[site.NoOutput]{}, errors.New("disk on fire at /var/db")
		})
	site.Handle(p, site.Action{Name: "decline", Description: "Declines", Expose: protocol.ExposePublic},
		func(r *site.Request, in struct{}) (site.Result[site.NoOutput], error) {
			r.SetCookie(&http.Cookie{Name: "half", Value: "done"})
			return site.Result[site.NoOutput]{}, site.Unavailable("sold out in the meantime")
		})
	site.Handle(p, site.Action{Name: "signIn", Description: "Sign in", Expose: protocol.ExposePublic},
		func(r *site.Request, in struct{}) (site.Result[site.NoOutput], error) {
			r.SetCookie(&http.Cookie{Name: "session", Value: "alice", Path: "/", HttpOnly: true})
			r.Caller = site.Caller{ID: "sess-alice", Mode: protocol.AuthCookie, SignedIn: true}
			return site.Result[site.NoOutput]{Redirect: "/p/tee"}, nil
		})
	site.Handle(p, site.Action{Name: "restock", Description: "Adds stock (no effects declared)", Expose: protocol.ExposePublic},
		func(r *site.Request, in struct {
			N int `json:"n" minimum:"1"`
		}) (site.Result[site.NoOutput], error) {
			sh.mu.Lock()
			defer sh.mu.Unlock()
			sh.stock += in.N
			return site.Result[site.NoOutput]{}, nil
		})
	site.Handle(p, site.Action{Name: "never", Description: "Guard is always false", Expose: protocol.ExposePublic,
		Guard: site.Guard{Text: "never", Check: func(*site.Request, *site.State) (bool, string) { return false, "not today" }}},
		func(r *site.Request, in addInput) (site.Result[site.NoOutput], error) {
			return site.Result[site.NoOutput]{}, nil
		})
	site.Handle(p, site.Action{Name: "secret", Description: "Hidden", Expose: protocol.ExposePublic,
		Visible: func(*site.Request) bool { return false }},
		func(r *site.Request, in struct{}) (site.Result[site.NoOutput], error) {
			return site.Result[site.NoOutput]{}, nil
		})
	one := ratelimit.Limit{Rate: 2, Per: time.Minute, Burst: 2}
	site.Handle(p, site.Action{Name: "ping", Description: "Limited", Expose: protocol.ExposePublic, Limit: &one},
		func(r *site.Request, in addInput) (site.Result[site.NoOutput], error) {
			return site.Result[site.NoOutput]{}, nil
		})
	site.Handle(p, site.Action{Name: "kinds", Description: "Takes every kind of form value", Expose: protocol.ExposePublic},
		func(r *site.Request, in formInputs) (site.Result[formInputs], error) {
			sh.mu.Lock()
			sh.lastKinds = in
			sh.mu.Unlock()
			return site.Result[formInputs]{Output: in}, nil
		})
	site.Handle(p, site.Action{Name: "loose", Description: "Explicit schema that allows any property", Expose: protocol.ExposePublic,
		Input: json.RawMessage(`{"type":"object"}`)},
		func(r *site.Request, in addInput) (site.Result[addInput], error) {
			return site.Result[addInput]{Output: in}, nil
		})
	return sh
}

const host = "http://example.com"

// call posts an agent call and returns the response.
func call(h http.Handler, path, body string, header ...string) *httptest.ResponseRecorder {
	r := httptest.NewRequest("POST", host+path, strings.NewReader(body))
	r.Header.Set("Content-Type", protocol.MediaType)
	for i := 0; i+1 < len(header); i += 2 {
		r.Header.Set(header[i], header[i+1])
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

// postForm posts an HTML form and returns the response.
func postForm(h http.Handler, path string, form url.Values, header ...string) *httptest.ResponseRecorder {
	r := httptest.NewRequest("POST", host+path, strings.NewReader(form.Encode()))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for i := 0; i+1 < len(header); i += 2 {
		r.Header.Set(header[i], header[i+1])
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

func decodeDelta(t testing.TB, w *httptest.ResponseRecorder) protocol.Delta {
	t.Helper()
	var d protocol.Delta
	if err := json.Unmarshal(w.Body.Bytes(), &d); err != nil {
		t.Fatalf("not a delta: %v\n%s", err, w.Body)
	}
	return d
}

func code(t testing.TB, w *httptest.ResponseRecorder) string {
	t.Helper()
	d := decodeDelta(t, w)
	if d.Error == nil {
		return "ok"
	}
	return string(d.Error.Code)
}

// failingLimiter is a Limiter whose store is down.
type failingLimiter struct{}

func (failingLimiter) Allow(context.Context, string, ratelimit.Limit) (ratelimit.Decision, error) {
	return ratelimit.Decision{}, errors.New("connection refused")
}

func do2(h http.Handler, method, target string, body *strings.Reader, header ...string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(method, host+target, body)
	for i := 0; i+1 < len(header); i += 2 {
		if header[i+1] != "" {
			r.Header.Set(header[i], header[i+1])
		}
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}
