package client_test

import (
	"html/template"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"sync/atomic"

	"github.com/affordances-go/affordances/client"
	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site"
	"github.com/affordances-go/affordances/site/sitetest"
)

// testSite is a small shop for the client's tests that need a site but
// not the demo store's database: a product page and a checkout with a
// confirm action. It is served in process (sitetest.Transport) at base.
type testSite struct {
	site   *site.Site
	orders atomic.Int32
}

const base = "http://shop.test"

type addToCart struct {
	SKU string `json:"sku" pattern:"^[A-Z0-9-]+$"`
	Qty int    `json:"qty,omitempty" minimum:"1" maximum:"10"`
}

func newTestSite() *testSite {
	ts := &testSite{}
	s := site.New(site.Options{Name: "Test shop", Logger: slog.New(slog.DiscardHandler),
		Auth: site.AuthFunc(func(r *http.Request) (site.Caller, error) {
			if tok, ok := site.BearerToken(r); ok {
				if tok != "good" {
					return site.Caller{}, site.ErrBadToken
				}
				return site.Caller{ID: "t1", Mode: protocol.AuthBearer, SignedIn: true}, nil
			}
			return site.Caller{}, nil
		})})
	view := template.Must(template.New("p").Funcs(site.Funcs()).Parse(
		`<html><head>{{affordancesLink}}</head><body>{{actionForm . "addToCart"}}</body></html>`))
	p := s.Page("/products/{slug}", site.PageOptions{View: view})
	site.Handle(p, site.Action{Name: "addToCart", Description: "Add to the cart", Expose: protocol.ExposePublic},
		func(r *site.Request, in addToCart) (site.Done, error) { return site.Done{}, nil })
	checkout := s.Page("/checkout", site.PageOptions{})
	site.Handle(checkout, site.Action{Name: "placeOrder", Description: "Order the cart", Expose: protocol.ExposeConfirm},
		func(r *site.Request, in struct{}) (site.Done, error) {
			ts.orders.Add(1)
			return site.Done{Message: "Order placed."}, nil
		})
	ts.site = s
	return ts
}

// client returns an agent of the test site with the given options.
func (ts *testSite) client(opts client.Options) *client.Client {
	jar, _ := cookiejar.New(nil)
	opts.HTTPClient = &http.Client{Transport: sitetest.Transport(ts.site), Jar: jar}
	return client.New(opts)
}
