package approval_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site"
	"github.com/affordances-go/affordances/site/approval"
)

type order struct{}

// Summary is what the person reads on the approval page.
func (order) Summary(*site.Request, *site.State) string { return "Order 2 items, 58.00 EUR." }

// Mount plugs approvals into a site: an agent's call to an action with
// approval, even with confirm: true, is sent to the page where the person
// decides, and nothing runs until they approved that exact call.
func ExampleMount() {
	s := site.New(site.Options{Auth: site.AuthFunc(func(r *http.Request) (site.Caller, error) {
		return site.Caller{ID: "token-1", Account: "ann", Mode: protocol.AuthBearer, SignedIn: true}, nil
	})})
	approval.Mount(s, &approval.Options{SignInURL: "/login"})
	site.Handle(s.Page("/checkout", site.PageOptions{}),
		site.Action{Name: "placeOrder", Expose: protocol.ExposeConfirm, RequireApproval: true},
		func(r *site.Request, in order) (site.Done, error) { return site.Done{Message: "Ordered."}, nil })

	r := httptest.NewRequest("POST", "/checkout", strings.NewReader(`{"action":"placeOrder","confirm":true}`))
	r.Header.Set("Content-Type", protocol.MediaType)
	r.Header.Set("Authorization", "Bearer token-1")
	w := httptest.NewRecorder()
	s.ServeHTTP(w, r)
	var d protocol.Delta
	json.Unmarshal(w.Body.Bytes(), &d)
	fmt.Println(w.Code, d.Error.Code, d.Error.Message)
	fmt.Println(strings.HasPrefix(d.ApprovalURL, "/approvals/"))
	// Output:
	// 428 confirm_required Order 2 items, 58.00 EUR.
	// true
}
