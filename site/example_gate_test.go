package site_test

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"strings"

	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site"
)

// Order is the input of the example's order action.
type Order struct {
	Amount int    `json:"amount" minimum:"1"`
	Ref    string `json:"ref"`
}

// A gate of the application's own, plugged in as an extension: orders
// above 100 need a second approval, a manager's, recorded by the
// application. The gate runs at step 6 on every door, after the core's
// own checks, for calls that would otherwise run; nothing runs when it
// refuses.
func ExampleExtension_gate() {
	managerApproved := map[string]bool{} // the application's record of second approvals
	secondApproval := site.ExtensionFunc(func(x *site.Extender) {
		x.Gate(site.StagePolicy, func(r *site.Request, c *site.Consent) error {
			o, ok := c.Input.(Order)
			if !ok || c.Action != "order" || o.Amount <= 100 || managerApproved[o.Ref] {
				return nil
			}
			return site.Unavailable("an order above 100 needs a manager's approval first: ask for it with reference %s", o.Ref)
		})
	})
	s := site.New(site.Options{Name: "Office supplies", Logger: slog.New(slog.DiscardHandler)}, secondApproval)
	p := s.Page("/supplies", site.PageOptions{})
	placed := 0
	site.Handle(p, site.Action{Name: "order", Description: "Order supplies", Expose: protocol.ExposePublic},
		func(r *site.Request, in Order) (site.Done, error) {
			placed++
			return site.Done{Message: fmt.Sprintf("Ordered for %d.", in.Amount)}, nil
		})

	call := func(body string) {
		r := httptest.NewRequest("POST", "/supplies", strings.NewReader(body))
		r.Header.Set("Content-Type", protocol.MediaType)
		w := httptest.NewRecorder()
		s.ServeHTTP(w, r)
		var d protocol.Delta
		json.Unmarshal(w.Body.Bytes(), &d)
		if d.OK {
			fmt.Println(w.Code, d.Message)
		} else {
			fmt.Println(w.Code, d.Error.Code+":", d.Error.Message)
		}
	}
	call(`{"action":"order","input":{"amount":40,"ref":"A-1"}}`)
	call(`{"action":"order","input":{"amount":900,"ref":"B-7"}}`)
	managerApproved["B-7"] = true
	call(`{"action":"order","input":{"amount":900,"ref":"B-7"}}`)
	fmt.Println("orders placed:", placed)
	// Output:
	// 200 Ordered for 40.
	// 409 unavailable: an order above 100 needs a manager's approval first: ask for it with reference B-7
	// 200 Ordered for 900.
	// orders placed: 2
}
