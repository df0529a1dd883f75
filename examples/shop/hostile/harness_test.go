package hostile_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/affordances-go/affordances/examples/shop/shop"
	"github.com/affordances-go/affordances/examples/shop/shoptest"
	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site/ratelimit"
)

// row is one hostile request and what it must get.
type row struct {
	name   string
	as     string   // who sends it: see env.actors
	method string   // default POST
	path   string   // with its query
	ctype  string   // "agent" (the default for POST), "form", "none", or a literal Content-Type
	header []string // name, value pairs; an empty value removes the header (the default Origin, say)
	body   string
	status int    // the status it must get
	code   string // the delta's error code, "ok" for a delta that succeeded, "graph" for a graph, "" for no Affordances document
	// mayChange marks the rows allowed to change the store; for every
	// other row the state digest must be the same before and after.
	mayChange bool
}

// actor is a set of credentials.
type actor struct {
	cookie string // the Cookie header
	token  string // a bearer token
}

// env is a running store with two people and what they own.
type env struct {
	t      *testing.T
	shop   *shoptest.Shop
	http   *http.Client
	actors map[string]actor
	orderA string // the path of an order of person A
	tokenA int64  // the id of a token of person A
}

// newEnv starts a store with person A (the demo account) and person B
// (the second seeded account), each signed in by cookie and by token. A
// has placed an order, has a second token, and has a line in the cart.
// The rate limit is high unless limited says otherwise, so that a table's
// many rows by one caller are not answered 429. A limited store has the
// default's burst of 30, refilled at 30 an hour rather than 120 a minute,
// so that how fast the machine runs the rows cannot refill a bucket.
func newEnv(t *testing.T, limited bool) *env {
	opts := shop.Options{DefaultLimit: ratelimit.PerMinute(100_000, 100_000)}
	if limited {
		opts.DefaultLimit = ratelimit.Limit{Rate: 30, Per: time.Hour, Burst: 30}
	}
	return newEnvWith(t, opts)
}

// newEnvWith is newEnv on a store with options of the test's.
func newEnvWith(t *testing.T, opts shop.Options) *env {
	s := shoptest.StartWith(t, opts)
	e := &env{t: t, shop: s, actors: map[string]actor{},
		http: &http.Client{Timeout: 20 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
	ctx := context.Background()
	e.actors["anon"] = actor{}
	for _, p := range []struct{ name, email, password string }{
		{"a", shop.DemoEmail, shop.DemoPassword}, {"b", shop.OtherEmail, shop.OtherPassword},
	} {
		id, err := s.Store.UserByEmail(ctx, p.email)
		if err != nil {
			t.Fatal(err)
		}
		tok, err := s.Store.CreateToken(ctx, id, "hostile "+p.name)
		if err != nil {
			t.Fatal(err)
		}
		e.actors[p.name+"-token"] = actor{token: tok}
		e.actors[p.name] = actor{cookie: e.signIn(p.email, p.password)}
	}
	e.actors["bad-token"] = actor{token: "not-a-token"}
	e.actors["invented-cookie"] = actor{cookie: "cart=invented; sid=invented"}
	// A guest: a cart cookie the store issued.
	res, _ := e.send(row{as: "anon", path: "/products/canvas-tote", body: `{"action":"addToCart","input":{"sku":"TOTE-NAT-ONESIZE"}}`})
	for _, c := range res.Cookies() {
		if c.Name == "cart" {
			e.actors["guest"] = actor{cookie: "cart=" + c.Value}
		}
	}
	if e.actors["guest"].cookie == "" {
		t.Fatal("no guest cookie")
	}
	// A's order, token and cart.
	// (The order is placed in the store: the store needs the person's
	// approval on the site for an agent's order.)
	aID, _ := s.Store.UserByEmail(ctx, shop.DemoEmail)
	if _, err := s.Store.AddToCart(ctx, shop.CartOwner{UserID: aID}, "TEE-OLI-S", 1); err != nil {
		t.Fatal(err)
	}
	orderID, err := s.Store.PlaceOrder(ctx, aID, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	e.orderA = "/orders/" + itoa(orderID)
	e.mustOK(row{as: "a-token", path: "/products/wool-beanie", body: `{"action":"addToCart","input":{"sku":"BEAN-CHA-ONESIZE"}}`})
	toks, err := s.Store.Tokens(ctx, aID)
	if err != nil || len(toks) == 0 {
		t.Fatal("A has no token", err)
	}
	e.tokenA = toks[0].ID
	return e
}

// signIn signs a person in by the API and returns the session cookie.
func (e *env) signIn(email, password string) string {
	res, body := e.send(row{as: "anon", path: "/login",
		body: `{"action":"signIn","input":{"email":"` + email + `","password":"` + password + `"}}`})
	for _, c := range res.Cookies() {
		if c.Name == "sid" {
			return "sid=" + c.Value
		}
	}
	e.t.Fatalf("sign-in of %s: %d %s", email, res.StatusCode, body)
	return ""
}

// send sends a row's request and returns the response and its body.
func (e *env) send(r row) (*http.Response, string) {
	e.t.Helper()
	method := r.method
	if method == "" {
		method = http.MethodPost
	}
	var body io.Reader
	if r.body != "" {
		body = strings.NewReader(r.body)
	}
	req, err := http.NewRequest(method, e.shop.URL+r.path, body)
	if err != nil {
		e.t.Fatal(err)
	}
	switch ct := r.ctype; {
	case ct == "" && method == http.MethodPost, ct == "agent":
		req.Header.Set("Content-Type", protocol.MediaType)
	case ct == "form":
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	case ct == "none", ct == "":
	default:
		req.Header.Set("Content-Type", ct)
	}
	a, ok := e.actors[r.as]
	if !ok {
		e.t.Fatalf("no actor %q", r.as)
	}
	if a.cookie != "" {
		req.Header.Set("Cookie", a.cookie)
		if method == http.MethodPost {
			req.Header.Set("Origin", e.shop.URL)
		}
	}
	if a.token != "" {
		req.Header.Set("Authorization", "Bearer "+a.token)
	}
	for i := 0; i+1 < len(r.header); i += 2 {
		if r.header[i+1] == "" {
			req.Header.Del(r.header[i])
		} else {
			req.Header.Set(r.header[i], r.header[i+1])
		}
	}
	res, err := e.http.Do(req)
	if err != nil {
		e.t.Fatalf("%s %s: %v", method, r.path, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res, string(b)
}

// mustOK sends a call that must succeed and returns its delta.
func (e *env) mustOK(r row) protocol.Delta {
	e.t.Helper()
	res, body := e.send(r)
	var d protocol.Delta
	if err := json.Unmarshal([]byte(body), &d); err != nil || res.StatusCode != 200 || !d.OK {
		e.t.Fatalf("setup %s %s: %d %s", r.as, r.path, res.StatusCode, body)
	}
	return d
}

// run runs every row as a subtest and returns how many ran.
func (e *env) run(rows []row) int {
	for _, r := range rows {
		e.t.Run(r.name, func(t *testing.T) {
			before := e.shop.Digest(t)
			res, body := e.send(r)
			if res.StatusCode >= 500 {
				t.Errorf("server error %d: %s", res.StatusCode, body)
			}
			if res.StatusCode != r.status {
				t.Errorf("status %d, want %d: %.300s", res.StatusCode, r.status, body)
			}
			switch {
			case r.code == "graph":
				if res.Header.Get("Content-Type") != protocol.MediaType || !strings.HasPrefix(body, `{"v":"0"`) {
					t.Errorf("not a graph: %.200s", body)
				}
			case r.code != "":
				got := deltaCode(body, res)
				if got != r.code {
					t.Errorf("code %q, want %q: %.300s", got, r.code, body)
				}
			case res.Header.Get("Content-Type") == protocol.MediaType:
				t.Errorf("an Affordances document where none was expected: %.200s", body)
			}
			if !r.mayChange {
				if after := e.shop.Digest(t); after != before {
					t.Errorf("the store changed")
				}
			}
		})
	}
	return len(rows)
}

// deltaCode returns the error code of a delta, "ok" for a success, or a
// description of what else the body is.
func deltaCode(body string, res *http.Response) string {
	if res.Header.Get("Content-Type") != protocol.MediaType {
		return "not a delta (" + res.Header.Get("Content-Type") + ")"
	}
	var d protocol.Delta
	if err := json.Unmarshal([]byte(body), &d); err != nil {
		return "not JSON"
	}
	if d.OK {
		return "ok"
	}
	if d.Error == nil {
		return "no error object"
	}
	return string(d.Error.Code)
}

// counts records the number of rows of each category, for the summary.
var counts = map[string]int{}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
