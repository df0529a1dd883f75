package hostile_test

import (
	"encoding/json"
	"strings"
	"testing"
)

// Confirmation bypass: a confirm action runs only when the call says
// "confirm": true, the boolean, in the call itself; nothing else an agent
// or a form can send stands in for it.
func TestHostile_ConfirmationBypass(t *testing.T) {
	e := newEnv(t, false)
	order := e.orderA
	rows := []row{
		{name: "placeOrder without confirm", as: "a-token", path: "/checkout", body: `{"action":"placeOrder"}`, status: 428, code: "confirm_required"},
		{name: "placeOrder with confirm false", as: "a-token", path: "/checkout", body: `{"action":"placeOrder","confirm":false}`, status: 428, code: "confirm_required"},
		{name: "confirm as the string true", as: "a-token", path: "/checkout", body: `{"action":"placeOrder","confirm":"true"}`, status: 400, code: "invalid_input"},
		{name: "confirm as 1", as: "a-token", path: "/checkout", body: `{"action":"placeOrder","confirm":1}`, status: 400, code: "invalid_input"},
		{name: "confirm as null", as: "a-token", path: "/checkout", body: `{"action":"placeOrder","confirm":null}`, status: 400, code: "invalid_input"},
		{name: "confirm as an object", as: "a-token", path: "/checkout", body: `{"action":"placeOrder","confirm":{"value":true}}`, status: 400, code: "invalid_input"},
		{name: "Confirm in another case", as: "a-token", path: "/checkout", body: `{"action":"placeOrder","Confirm":true}`, status: 428, code: "confirm_required"},
		{name: "confirm twice", as: "a-token", path: "/checkout", body: `{"action":"placeOrder","confirm":false,"confirm":true}`, status: 400, code: "invalid_input"},
		{name: "confirm inside the input", as: "a-token", path: "/checkout", body: `{"action":"placeOrder","input":{"confirm":true}}`, status: 400, code: "invalid_input"},
		{name: "confirm in the query", as: "a-token", path: "/checkout?confirm=true", body: `{"action":"placeOrder"}`, status: 428, code: "confirm_required"},
		{name: "confirm in the query with the alias", as: "a-token", path: "/checkout?affordances=1&confirm=true", body: `{"action":"placeOrder"}`, status: 428, code: "confirm_required"},
		{name: "confirm in a header", as: "a-token", path: "/checkout", body: `{"action":"placeOrder"}`, header: []string{"X-Confirm", "true"}, status: 428, code: "confirm_required"},
		{name: "a form without _confirm", as: "a", path: "/checkout", ctype: "form", body: "_action=placeOrder", status: 428},
		{name: "a form with _confirm=1", as: "a", path: "/checkout", ctype: "form", body: "_action=placeOrder&_confirm=1", status: 428},
		{name: "a form with _confirm=TRUE", as: "a", path: "/checkout", ctype: "form", body: "_action=placeOrder&_confirm=TRUE", status: 428},
		{name: "a form with _confirm=on", as: "a", path: "/checkout", ctype: "form", body: "_action=placeOrder&_confirm=on", status: 428},
		{name: "a form with _confirm in the query", as: "a", path: "/checkout?_confirm=true", ctype: "form", body: "_action=placeOrder", status: 428},
		{name: "a form with confirm instead of _confirm", as: "a", path: "/checkout", ctype: "form", body: "_action=placeOrder&confirm=true", status: 428},
		{name: "a confirm form from another site", as: "a", path: "/checkout", ctype: "form", body: "_action=placeOrder&_confirm=true", header: []string{"Origin", "https://evil.example"}, status: 403},
		{name: "a confirm call from another site", as: "a", path: "/checkout", body: `{"action":"placeOrder","confirm":true}`, header: []string{"Origin", "https://evil.example"}, status: 403, code: "unauthorized"},
		{name: "confirm: true without a session", as: "anon", path: "/checkout", body: `{"action":"placeOrder","confirm":true}`, status: 401, code: "unauthorized"},
		{name: "confirm: true with a guest cart", as: "guest", path: "/checkout", body: `{"action":"placeOrder","confirm":true}`, status: 401, code: "unauthorized"},
		{name: "confirm: true with a rejected token", as: "bad-token", path: "/checkout", body: `{"action":"placeOrder","confirm":true}`, status: 401, code: "unauthorized"},
		{name: "cancelOrder without confirm", as: "a-token", path: order, body: `{"action":"cancelOrder"}`, status: 428, code: "confirm_required"},
		{name: "cancelOrder with confirm false", as: "a-token", path: order, body: `{"action":"cancelOrder","confirm":false}`, status: 428, code: "confirm_required"},
		{name: "cancelOrder by a form without _confirm", as: "a", path: order, ctype: "form", body: "_action=cancelOrder", status: 428},
		{name: "a GET with the call in the query", as: "a-token", method: "GET", path: "/checkout?action=placeOrder&confirm=true", status: 200},
		{name: "PUT of a confirmed call", as: "a-token", method: "PUT", path: "/checkout", body: `{"action":"placeOrder","confirm":true}`, status: 405},
		{name: "PATCH of a confirmed call", as: "a-token", method: "PATCH", path: "/checkout", body: `{"action":"placeOrder","confirm":true}`, status: 405},
		{name: "method override header", as: "a-token", method: "GET", path: "/checkout", header: []string{"X-HTTP-Method-Override", "POST"}, status: 200},
		{name: "confirm: true on a non-confirm action is ignored", as: "a-token", path: "/products/heavyweight-tee", body: `{"action":"addToCart","input":{"sku":"TEE-WHI-L"},"confirm":true}`, status: 200, code: "ok", mayChange: true},
		{name: "confirm: true alone, where the person's approval is needed", as: "a-token", path: "/checkout", body: `{"action":"placeOrder","confirm":true}`, status: 428, code: "confirm_required"},
		{name: "a made-up approval", as: "a-token", path: "/checkout", body: `{"action":"placeOrder","confirm":true,"approval":"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}`, status: 428, code: "confirm_required"},
		{name: "an approval that is a number", as: "a-token", path: "/checkout", body: `{"action":"placeOrder","confirm":true,"approval":1}`, status: 400, code: "invalid_input"},
		{name: "an approval in the input", as: "a-token", path: "/checkout", body: `{"action":"placeOrder","confirm":true,"input":{"approval":"x"}}`, status: 400, code: "invalid_input"},
		{name: "an approval in the query", as: "a-token", path: "/checkout?approval=x", body: `{"action":"placeOrder","confirm":true}`, status: 428, code: "confirm_required"},
		{name: "cancelOrder with confirm: true alone", as: "a-token", path: order, body: `{"action":"cancelOrder","confirm":true}`, status: 428, code: "confirm_required"},
		{name: "an agent approves on the approval page with its token", as: "a-token", path: "/approvals/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", ctype: "form", body: "_decision=approve", status: 404},
		{name: "revokeToken with confirm: true from an agent on the person's cookie (people-only)", as: "a", path: "/account", body: `{"action":"revokeToken","input":{"id":` + itoa(e.tokenA) + `},"confirm":true}`, status: 403, code: "unauthorized"},
		{name: "revokeToken (plain confirmation) runs for the person's own form", as: "a", path: "/account", ctype: "form", body: "_action=revokeToken&_confirm=true&id=" + itoa(e.tokenA), status: 303, mayChange: true},
	}
	// A real approval, decided by an agent in the person's page: a script's
	// fetch carries the cookie and the site's Origin, not a navigation.
	_, asked := e.send(row{as: "a-token", path: "/checkout", body: `{"action":"placeOrder","confirm":true}`})
	var d struct {
		ApprovalURL string `json:"approvalUrl"`
	}
	json.Unmarshal([]byte(asked), &d)
	if d.ApprovalURL == "" {
		t.Fatalf("no approval asked: %s", asked)
	}
	rows = append(rows,
		row{name: "an agent in the person's page approves by a script's fetch", as: "a", path: d.ApprovalURL, ctype: "form", body: "_decision=approve",
			header: []string{"Sec-Fetch-Mode", "cors", "Sec-Fetch-Site", "same-origin"}, status: 403},
		row{name: "an agent in the person's page approves by a script's no-cors fetch", as: "a", path: d.ApprovalURL, ctype: "form", body: "_decision=approve",
			header: []string{"Sec-Fetch-Mode", "no-cors", "Sec-Fetch-Site", "same-origin"}, status: 403},
	)
	counts["confirmation bypass"] = e.run(rows)
	if _, again := e.send(row{as: "a-token", path: "/checkout", body: `{"action":"placeOrder","confirm":true,"approval":"` + d.ApprovalURL + `"}`}); !strings.Contains(again, "confirm_required") {
		t.Errorf("after the script's approvals, the call: %s", again)
	}
}
