package main

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/affordances-go/affordances/examples/shop/shop"
	"github.com/affordances-go/affordances/examples/shop/shoptest"
	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site"
)

// A refusal's hint fits what was refused: a token's scope is not the
// Origin rule, a people-only action names the person, and a site that
// takes no bearer token is not asked for one.
func TestHints_FitTheRefusal(t *testing.T) {
	s := shoptest.Start(t)
	demo, _ := s.Store.UserByEmail(context.Background(), shop.DemoEmail)
	scoped, err := s.Store.CreateGrantedToken(context.Background(), demo, "scoped", shop.Grant{Actions: []string{"addToCart"}})
	if err != nil {
		t.Fatal(err)
	}
	_, _, errs := afford(t, map[string]string{"AFFORD_TOKEN": scoped}, "call", s.URL+"/cart", "removeFromCart", "sku=TEE-BLK-M")
	if !strings.Contains(errs, "not granted this action") || strings.Contains(errs, "another origin") {
		t.Errorf("a token's scope: %s", errs)
	}
	_, _, errs = afford(t, map[string]string{"AFFORD_TOKEN": s.Token}, "call", s.URL+"/account", "createToken", "label=x")
	if !strings.Contains(errs, "only the person can do this") || strings.Contains(errs, "another origin") {
		t.Errorf("a people-only action: %s", errs)
	}

	cookieOnly := site.New(site.Options{AuthModes: []protocol.AuthMode{protocol.AuthCookie}, Logger: slog.New(slog.DiscardHandler),
		Auth: site.AuthFunc(func(r *http.Request) (site.Caller, error) { return site.Caller{}, nil })})
	p := cookieOnly.Page("/notes", site.PageOptions{Load: func(r *site.Request) (*site.State, error) { return &site.State{}, nil }})
	site.Handle(p, site.Action{Name: "write", Expose: protocol.ExposeSession},
		func(r *site.Request, in struct{}) (site.Done, error) { return site.Done{}, nil })
	srv := httptest.NewServer(cookieOnly)
	defer srv.Close()
	_, _, errs = afford(t, nil, "call", srv.URL+"/notes", "write")
	if strings.Contains(errs, "bearer token") || !strings.Contains(errs, "--cookie-jar") {
		t.Errorf("a cookie-only site: %s", errs)
	}
}
