package site_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"strings"

	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site"
)

// Entities load one by one, on first use: a call reads what its guard
// needs before the action and its effects after it, nothing else.
func ExampleEntity() {
	stock, basket := 3, 0
	stockKey := site.NewKey[int]("stock")
	basketKey := site.NewKey[int]("basket")
	s := site.New(site.Options{Name: "Stall", Logger: slog.New(slog.DiscardHandler)})
	p := s.Page("/stall", site.PageOptions{Entities: []site.EntityLoader{
		site.Entity(stockKey, func(r *site.Request) (int, error) { fmt.Println("load stock"); return stock, nil }),
		site.Entity(basketKey, func(r *site.Request) (int, error) { fmt.Println("load basket"); return basket, nil }),
	}})
	site.Handle(p, site.Action{Name: "take", Description: "Take one", Expose: protocol.ExposePublic,
		Effects: site.Effects(site.NewKey[any]("basket")),
		Guard: site.Guard{Text: "something is left", Check: func(r *site.Request, st *site.State) (bool, string) {
			return stockKey.Get(st) > 0, "sold out"
		}}},
		func(r *site.Request, in struct{}) (site.Done, error) {
			basket++
			return site.Done{}, nil
		})

	r := httptest.NewRequest("POST", "/stall", strings.NewReader(`{"action":"take"}`))
	r.Header.Set("Content-Type", protocol.MediaType)
	w := httptest.NewRecorder()
	s.ServeHTTP(w, r)
	fmt.Println(w.Body.String())
	// Output:
	// load stock
	// load basket
	// {"ok":true,"changed":{"basket":1}}
}

// An Observer sees every call with the time of each pipeline step.
func ExampleObserver() {
	s := site.New(site.Options{Name: "Watched", Logger: slog.New(slog.DiscardHandler), Observer: printer{}})
	p := s.Page("/", site.PageOptions{})
	site.Handle(p, site.Action{Name: "ping", Description: "Ping", Expose: protocol.ExposePublic},
		func(r *site.Request, in struct{}) (site.Done, error) { return site.Done{}, nil })
	r := httptest.NewRequest("POST", "/", strings.NewReader(`{"action":"ping"}`))
	r.Header.Set("Content-Type", protocol.MediaType)
	s.ServeHTTP(httptest.NewRecorder(), r)
	// Output:
	// ping on / by agent (anonymous): ok, 8 steps
}

type printer struct{}

func (printer) ObserveCall(_ context.Context, c site.CallEvent) {
	fmt.Printf("%s on %s by %s (%s): %s, %d steps\n", c.Action, c.Route, c.Transport, c.Caller, c.Code, len(c.Steps))
}

func (printer) ObserveGraph(context.Context, site.GraphEvent) {}
