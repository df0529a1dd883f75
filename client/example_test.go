package client_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/affordances-go/affordances/client"
	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site"
)

// A site with one confirm action, to call from the examples.
func exampleSite() *httptest.Server {
	s := site.New(site.Options{Auth: site.AuthFunc(func(r *http.Request) (site.Caller, error) {
		return site.Caller{ID: "demo", Mode: protocol.AuthBearer, SignedIn: true}, nil
	})})
	p := s.Page("/checkout", site.PageOptions{})
	site.Handle(p, site.Action{Name: "placeOrder", Description: "Order the cart", Expose: protocol.ExposeConfirm},
		func(r *site.Request, in struct{}) (site.Done, error) {
			return site.Done{Message: "Order 7 placed.", Redirect: "/orders/7"}, nil
		})
	return httptest.NewServer(s)
}

// A confirm action goes to the Approver with the server's summary; the
// call is repeated with confirm: true only when the person says yes.
func ExampleClient_Call() {
	srv := exampleSite()
	defer srv.Close()

	c := client.New(client.Options{
		Token: "demo-token",
		Approver: func(ctx context.Context, a client.Approval) (bool, error) {
			fmt.Println("asked:", a.Summary)
			return true, nil
		},
	})
	res, err := c.Call(context.Background(), srv.URL+"/checkout", "placeOrder", nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Confirmed, res.Delta.Message, res.Delta.Redirect)
	// Output:
	// asked: Confirm: Order the cart
	// true Order 7 placed. /orders/7
}

// An agent plans from the site index, then reads the graph of the page it
// will act on: whether the action is there for it, and why not when not.
func ExampleClient_Graph() {
	srv := exampleSite()
	defer srv.Close()

	c := client.New(client.Options{Token: "demo-token"})
	idx, err := c.Index(context.Background(), srv.URL)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range idx.Routes {
		for _, a := range r.Actions {
			fmt.Println(r.Route, a.Name, a.Expose)
		}
	}
	g, err := c.Graph(context.Background(), srv.URL+"/checkout")
	if err != nil {
		fmt.Println(err)
		return
	}
	a := g.Action("placeOrder")
	fmt.Println(a.Available, a.Description)
	// Output:
	// /checkout placeOrder confirm
	// true Order the cart
}
