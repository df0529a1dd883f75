package site_test

import (
	"bytes"
	"log/slog"
	"net/url"
	"strings"
	"testing"

	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site"
	"github.com/affordances-go/affordances/site/sitetest"
)

func TestKey_SetGetLookup(t *testing.T) {
	st := &site.State{}
	productKey.Set(st, product{Name: "tee"})
	if got := productKey.Get(st); got.Name != "tee" {
		t.Errorf("Get = %+v", got)
	}
	if _, ok := cartKey.Lookup(st); ok {
		t.Error("Lookup of a missing entity reported it present")
	}
	if v, ok := site.NewKey[product]("product").Lookup(st); productKey.Name() != "product" || !ok || v.Name != "tee" {
		t.Errorf("Set did not store under the key's name: %+v", v)
	}
}

// A guard, summary or input guard that reads an entity with the wrong
// type, or panics, is a fault of the site: every transport answers a
// generic internal error, the log names the route and the entity, and
// nothing runs.
func TestKey_AWronglyTypedEntityIsAnInternalErrorNeverAPanic(t *testing.T) {
	var logs bytes.Buffer
	s := site.New(site.Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	ran := 0
	handler := func(*site.Request, struct{}) (site.Done, error) { ran++; return site.Done{}, nil }
	// The page holds a cart summary under "cart"; the guards expect the
	// whole cart (cartView) or a product that is not there.
	summary := site.NewKey[int]("cart")
	load := func(r *site.Request) (*site.State, error) {
		st := &site.State{}
		summary.Set(st, 3)
		return st, nil
	}
	mistyped := s.Page("/mistyped", site.PageOptions{Load: load, View: shopView})
	site.Handle(mistyped, site.Action{Name: "order", Expose: protocol.ExposePublic,
		Guard: site.Guard{Check: func(r *site.Request, st *site.State) (bool, string) {
			return cartKey.Get(st).Count > 0, "empty"
		}}}, handler)
	missing := s.Page("/missing", site.PageOptions{Load: load})
	site.Handle(missing, site.Action{Name: "order", Expose: protocol.ExposePublic,
		Guard: site.Guard{Check: func(r *site.Request, st *site.State) (bool, string) {
			return productKey.Get(st).Stock > 0, "sold out"
		}}}, handler)
	panics := s.Page("/panics", site.PageOptions{Load: load})
	site.Handle(panics, site.Action{Name: "order", Expose: protocol.ExposePublic,
		Guard: site.Guard{Check: func(r *site.Request, st *site.State) (bool, string) {
			var p *product
			return p.Stock > 0, "nil product"
		}}}, handler)

	c := sitetest.New(t, s)
	for route, wantLog := range map[string]string{
		"/mistyped": `entity \"cart\" holds int, want site_test.cartView`,
		"/missing":  `entity \"product\" is missing`,
		"/panics":   `panic: runtime error: invalid memory address`,
	} {
		logs.Reset()
		if w := c.Get(route, sitetest.Header("Accept", agent)); w.Code != 500 || w.ErrorCode() != "internal" {
			t.Errorf("%s graph: %d %s", route, w.Code, w.Body)
		}
		if !strings.Contains(logs.String(), "route="+route) || !strings.Contains(logs.String(), wantLog) {
			t.Errorf("%s: the log does not name the route and the fault:\n%s", route, logs.String())
		}
		if w := c.Call(route, "order", nil); w.Code != 500 || w.ErrorCode() != "internal" {
			t.Errorf("%s call: %d %s", route, w.Code, w.Body)
		}
		if strings.Contains(logs.String(), "site_test.cartView") && route != "/mistyped" {
			t.Errorf("%s: unrelated fault logged", route)
		}
	}
	if w := c.Get("/mistyped"); w.Code != 500 || strings.Contains(w.Body.String(), "cartView") {
		t.Errorf("HTML of a faulty page: %d %s", w.Code, w.Body)
	}
	if w := c.PostForm("/mistyped", url.Values{"_action": {"order"}}); w.Code != 500 {
		t.Errorf("form on a faulty page: %d %s", w.Code, w.Body)
	}
	if ran != 0 {
		t.Errorf("the handler ran %d times behind a faulty guard", ran)
	}
}

// Forms carry fields of their own (a CSRF token, a tracking parameter):
// they are ignored, whether the action has input fields or none.
func TestForms_UnknownFieldsAreIgnoredWithAndWithoutInputs(t *testing.T) {
	f := newFixture(t)
	extra := url.Values{"csrf": {"t0k3n"}, "utm_source": {"mail"}}
	with := func(v url.Values) url.Values {
		for k, x := range extra {
			v[k] = x
		}
		return v
	}
	if w := f.c.PostForm("/p/tee", with(url.Values{"_action": {"signIn"}})); w.Code != 303 {
		t.Errorf("signIn (no inputs) with extra fields: %d %s", w.Code, w.Body)
	}
	if w := f.c.PostForm("/p/tee", with(url.Values{"_action": {"addToCart"}, "sku": {"A"}})); w.Code != 303 {
		t.Errorf("addToCart with extra fields: %d %s", w.Code, w.Body)
	}
	// placeOrder is a confirm action: the extra fields do not fail it, it
	// asks for the confirmation, and they are not carried into the page.
	w := f.c.PostForm("/p/tee", with(url.Values{"_action": {"placeOrder"}}), sitetest.Header("Authorization", "Bearer good"))
	if w.Code != 428 || strings.Contains(w.Body.String(), "t0k3n") {
		t.Errorf("placeOrder with extra fields: %d %s", w.Code, w.Body)
	}
}
