package idempotency_test

import (
	"fmt"
	"net/http/httptest"
	"strings"

	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site"
	"github.com/affordances-go/affordances/site/idempotency"
)

type add struct {
	N int `json:"n" minimum:"1"`
}

// A call retried with the same Idempotency-Key runs once: the repeat is
// answered with the first call's delta, marked as replayed; the same key
// with another body is refused. The site keeps keys in memory unless
// Options.Idempotency.Store names a shared store.
func Example() {
	total := 0
	s := site.New(site.Options{Idempotency: site.IdempotencyOptions{Store: idempotency.NewMemory()}})
	p := s.Page("/counter", site.PageOptions{})
	site.Handle(p, site.Action{Name: "add", Expose: protocol.ExposePublic},
		func(r *site.Request, in add) (site.Done, error) {
			total += in.N
			return site.Done{Message: fmt.Sprintf("total %d", total)}, nil
		})

	call := func(key, body string) {
		r := httptest.NewRequest("POST", "/counter", strings.NewReader(body))
		r.Header.Set("Content-Type", protocol.MediaType)
		r.Header.Set(protocol.IdempotencyHeader, key)
		w := httptest.NewRecorder()
		s.ServeHTTP(w, r)
		fmt.Println(w.Code, w.Header().Get(protocol.ReplayedHeader), strings.TrimSpace(w.Body.String()))
	}
	call("order-1", `{"action":"add","input":{"n":2}}`)
	call("order-1", `{"action":"add","input":{"n":2}}`) // a retry: nothing runs again
	call("order-1", `{"action":"add","input":{"n":5}}`) // another call under the same key
	fmt.Println("total:", total)
	// Output:
	// 200  {"ok":true,"message":"total 2"}
	// 200 true {"ok":true,"message":"total 2"}
	// 409  {"ok":false,"error":{"code":"unavailable","message":"this Idempotency-Key was used for another call: use a new key for a new call"}}
	// total: 2
}
