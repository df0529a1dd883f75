package site_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"strings"

	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site"
)

// A page's Transact runs each call's guard, action and delta in one
// transaction of the application's: here a copy of the stock that
// becomes the stock only when the call succeeds.
func ExamplePageOptions_transact() {
	stock := 1
	type txKey struct{}
	transact := func(ctx context.Context, fn func(context.Context) error) error {
		tx := stock // the transaction's own copy
		if err := fn(context.WithValue(ctx, txKey{}, &tx)); err != nil {
			fmt.Println("rolled back")
			return err
		}
		stock = tx
		fmt.Println("committed")
		return nil
	}
	stockKey := site.NewKey[int]("stock")
	s := site.New(site.Options{Name: "Stall", Logger: slog.New(slog.DiscardHandler)})
	p := s.Page("/stall", site.PageOptions{Transact: transact, Entities: []site.EntityLoader{
		site.Entity(stockKey, func(r *site.Request) (int, error) { return *r.Context().Value(txKey{}).(*int), nil }),
	}})
	site.Handle(p, site.Action{Name: "take", Description: "Take one", Expose: protocol.ExposePublic,
		Effects: site.Effects(stockKey),
		Guard: site.Guard{Text: "something is left", Check: func(r *site.Request, st *site.State) (bool, string) {
			return stockKey.Get(st) > 0, "sold out"
		}}},
		func(r *site.Request, in struct{}) (site.Done, error) {
			*r.Context().Value(txKey{}).(*int) -= 1
			return site.Done{}, nil
		})

	for range 2 {
		r := httptest.NewRequest("POST", "/stall", strings.NewReader(`{"action":"take"}`))
		r.Header.Set("Content-Type", protocol.MediaType)
		w := httptest.NewRecorder()
		s.ServeHTTP(w, r)
		var d protocol.Delta
		json.Unmarshal(w.Body.Bytes(), &d)
		if d.OK {
			fmt.Println(w.Code, "changed:", d.Changed)
		} else {
			fmt.Println(w.Code, d.Error.Code+":", d.Error.Message)
		}
	}
	fmt.Println("stock:", stock)
	// Output:
	// committed
	// 200 changed: map[stock:0]
	// rolled back
	// 409 unavailable: sold out
	// stock: 0
}
