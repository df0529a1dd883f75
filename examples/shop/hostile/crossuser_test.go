package hostile_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/affordances-go/affordances/protocol"
)

// Cross-user access: person B gets none of person A's orders, tokens or
// cart, by agent or by browser. What B may not see answers 404, exactly as
// what does not exist, so ids do not tell B what exists.
func TestHostile_CrossUser(t *testing.T) {
	e := newEnv(t, false)
	order := e.orderA
	id := strings.TrimPrefix(order, "/orders/")
	missing := "/orders/999999"
	revoke := `{"action":"revokeToken","input":{"id":` + itoa(e.tokenA) + `},"confirm":true}`
	rows := []row{
		{name: "B's agent reads A's order", as: "b-token", method: "GET", path: order, header: []string{"Accept", protocol.MediaType}, status: 404, code: "not_found"},
		{name: "B's agent reads A's order by the alias", as: "b-token", method: "GET", path: order + "?affordances=1", status: 404, code: "not_found"},
		{name: "B's browser reads A's order", as: "b", method: "GET", path: order, status: 404},
		{name: "B's browser by HEAD", as: "b", method: "HEAD", path: order, status: 404},
		{name: "B's cookie agent reads A's order", as: "b", method: "GET", path: order, header: []string{"Accept", protocol.MediaType}, status: 404, code: "not_found"},
		{name: "B cancels A's order", as: "b-token", path: order, body: `{"action":"cancelOrder","confirm":true}`, status: 404, code: "not_found"},
		{name: "B cancels A's order without confirm", as: "b-token", path: order, body: `{"action":"cancelOrder"}`, status: 404, code: "not_found"},
		{name: "B cancels A's order by a form", as: "b", path: order, ctype: "form", body: "_action=cancelOrder&_confirm=true", status: 404},
		{name: "B cancels A's order with a padded id", as: "b-token", path: "/orders/0" + id, body: `{"action":"cancelOrder","confirm":true}`, status: 404, code: "not_found"},
		{name: "B's session agent revokes A's token (people-only)", as: "b", path: "/account", body: revoke, status: 403, code: "unauthorized"},
		{name: "B's agent revokes A's token (people-only)", as: "b-token", path: "/account", body: revoke, status: 403, code: "unauthorized"},
		{name: "B revokes A's token by a form", as: "b", path: "/account", ctype: "form", body: "_action=revokeToken&_confirm=true&id=" + itoa(e.tokenA), status: 404},
		{name: "B removes a line only A has", as: "b-token", path: "/cart", body: `{"action":"removeFromCart","input":{"sku":"BEAN-CHA-ONESIZE"}}`, status: 409, code: "unavailable"},
		{name: "B sets the quantity of A's line", as: "b-token", path: "/cart", body: `{"action":"setQuantity","input":{"sku":"BEAN-CHA-ONESIZE","qty":5}}`, status: 409, code: "unavailable"},
		{name: "an order that does not exist", as: "b-token", method: "GET", path: missing, header: []string{"Accept", protocol.MediaType}, status: 404, code: "not_found"},
		{name: "a guest reads A's order", as: "guest", method: "GET", path: order, header: []string{"Accept", protocol.MediaType}, status: 404, code: "not_found"},
		{name: "a guest's browser is sent to sign in", as: "guest", method: "GET", path: order, status: 303},
		{name: "anonymous reads A's order", as: "anon", method: "GET", path: order, header: []string{"Accept", protocol.MediaType}, status: 404, code: "not_found"},
		{name: "anonymous cancels A's order", as: "anon", path: order, body: `{"action":"cancelOrder","confirm":true}`, status: 404, code: "not_found"}, // a page the caller may not see is not there (issue 51)
		{name: "a rejected token reads A's order", as: "bad-token", method: "GET", path: order, header: []string{"Accept", protocol.MediaType}, status: 401, code: "unauthorized"},
		{name: "A reads A's order", as: "a-token", method: "GET", path: order, header: []string{"Accept", protocol.MediaType}, status: 200, code: "graph"},
		{name: "A's browser reads A's order", as: "a", method: "GET", path: order, status: 200},
	}
	counts["cross-user access"] = e.run(rows)

	// What B's pages show holds nothing of A's.
	for _, path := range []string{"/orders", "/account", "/cart", "/checkout"} {
		_, body := e.send(row{as: "b-token", method: "GET", path: path, header: []string{"Accept", protocol.MediaType}})
		for _, secret := range []string{`"id":` + id + `,`, "hostile a", "BEAN-CHA-ONESIZE", "Demo Shopper", "demo@example.com"} {
			if strings.Contains(body, secret) {
				t.Errorf("B's %s shows A's %q", path, secret)
			}
		}
		_, html := e.send(row{as: "b", method: "GET", path: path})
		for _, secret := range []string{"Order " + id + "<", "hostile a", "BEAN-CHA-ONESIZE", "Demo Shopper"} {
			if strings.Contains(html, secret) {
				t.Errorf("B's %s page shows A's %q", path, secret)
			}
		}
	}
	// An order of A and one that does not exist look the same to B.
	_, a := e.send(row{as: "b-token", method: "GET", path: order, header: []string{"Accept", protocol.MediaType}})
	_, m := e.send(row{as: "b-token", method: "GET", path: missing, header: []string{"Accept", protocol.MediaType}})
	var da, dm protocol.Delta
	json.Unmarshal([]byte(a), &da)
	json.Unmarshal([]byte(m), &dm)
	if da.Error == nil || dm.Error == nil || da.Error.Code != dm.Error.Code || da.Error.Message != dm.Error.Message {
		t.Errorf("A's order and a missing one answer differently:\n%s\n%s", a, m)
	}
}
