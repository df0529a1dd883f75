package hostile_test

import (
	"encoding/json"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/affordances-go/affordances/protocol"
)

// Injection: text from a caller reaches SQL as a parameter, HTML escaped,
// md escaped, and paths only as names of what exists.
func TestHostile_Injection(t *testing.T) {
	e := newEnv(t, false)
	q := func(s string) string { return "/?q=" + url.QueryEscape(s) }
	graph := []string{"Accept", protocol.MediaType + "; md=1"} // the md too, where a search could put markup
	rows := []row{
		{name: "SQL in the search", as: "anon", method: "GET", path: q(`' OR 1=1 --`), header: graph, status: 200, code: "graph"},
		{name: "SQL union in the search", as: "anon", method: "GET", path: q(`x' UNION SELECT email, password_hash, 1, 'EUR', 1 FROM users --`), header: graph, status: 200, code: "graph"},
		{name: "a LIKE wildcard in the search", as: "anon", method: "GET", path: q(`%`), header: graph, status: 200, code: "graph"},
		{name: "an underscore in the search", as: "anon", method: "GET", path: q(`_`), header: graph, status: 200, code: "graph"},
		{name: "HTML in the search, for a browser", as: "anon", method: "GET", path: q(`<script>alert(1)</script>`), status: 200},
		{name: "markdown in the search", as: "anon", method: "GET", path: q(`[x](javascript:alert(1)) ![y](http://evil/y.png)`), header: graph, status: 200, code: "graph"},
		{name: "a NUL in the search", as: "anon", method: "GET", path: "/?q=%00", header: graph, status: 200, code: "graph"},
		{name: "a very long search", as: "anon", method: "GET", path: q(strings.Repeat("a", 4000)), header: graph, status: 200, code: "graph"},
		{name: "SQL in a slug", as: "anon", method: "GET", path: "/products/" + url.PathEscape(`x' OR '1'='1`), header: graph, status: 404, code: "not_found"},
		{name: "a traversal in a slug", as: "anon", method: "GET", path: "/products/..%2f..%2fetc%2fpasswd", header: graph, status: 404, code: "not_found"},
		{name: "a traversal in static", as: "anon", method: "GET", path: "/static/..%2f..%2fshop.db", status: 404},
		{name: "overlong UTF-8 in static", as: "anon", method: "GET", path: "/static/%c0%ae%c0%ae/etc/passwd", status: 404},
		{name: "an invalid byte in static", as: "anon", method: "GET", path: "/static/%ff", status: 404},
		{name: "the static directory", as: "anon", method: "GET", path: "/static/", status: 404},
		{name: "SQL in the email of a sign-in", as: "anon", path: "/login", body: `{"action":"signIn","input":{"email":"x@example.com' OR '1'='1","password":"x"}}`, status: 400, code: "invalid_input"},
		{name: "SQL in the password of a sign-in", as: "anon", path: "/login", body: `{"action":"signIn","input":{"email":"demo@example.com","password":"' OR '1'='1"}}`, status: 409, code: "unavailable"},
		{name: "SQL in a SKU", as: "a-token", path: "/products/heavyweight-tee", body: `{"action":"addToCart","input":{"sku":"X' OR 1=1 --"}}`, status: 400, code: "invalid_input"},
		{name: "a SKU of another product", as: "a-token", path: "/products/heavyweight-tee", body: `{"action":"addToCart","input":{"sku":"TOTE-NAT-ONESIZE"}}`, status: 409, code: "unavailable"},
		{name: "a header injection in a SKU", as: "a-token", path: "/products/heavyweight-tee", body: `{"action":"addToCart","input":{"sku":"TEE-BLK-M\r\nSet-Cookie: x=y"}}`, status: 400, code: "invalid_input"},
		{name: "an order id that is SQL", as: "a-token", method: "GET", path: "/orders/1%20OR%201=1", header: graph, status: 404, code: "not_found"},
		{name: "a token id that is SQL, from an agent (people-only: refused before its input is read)", as: "a-token", path: "/account", body: `{"action":"revokeToken","input":{"id":"1 OR 1=1"}}`, status: 403, code: "unauthorized"},
		{name: "a token id that is SQL, in the person's form", as: "a", path: "/account", ctype: "form", body: "_action=revokeToken&_confirm=true&id=1+OR+1%3D1", status: 400},
		{name: "a path that looks like another host", as: "a", method: "GET", path: "//evil.example/checkout", status: 307},
		{name: "HTML in a token label", as: "a", path: "/account", ctype: "form", body: "_action=createToken&label=%3Cimg+src%3Dx+onerror%3Dalert(1)%3E", status: 303, mayChange: true},
		{name: "a template in a token label", as: "a", path: "/account", ctype: "form", body: "_action=createToken&label=%7B%7B.Entities%7D%7D", status: 303, mayChange: true},
		{name: "HTML in a new account's name", as: "anon", path: "/signup", body: `{"action":"signUp","input":{"name":"<script>alert(1)</script>","email":"mallory@example.com","password":"mallory's password"}}`, status: 200, code: "ok", mayChange: true},
	}
	counts["injection"] = e.run(rows)

	// What came back: nothing of the attacker's text is live markup.
	_, body := e.send(row{as: "anon", method: "GET", path: q(`' OR 1=1 --`), header: graph})
	if !strings.Contains(body, `"count":0`) {
		t.Errorf("the SQL search matched products: %.300s", body)
	}
	_, body = e.send(row{as: "anon", method: "GET", path: q(`x' UNION SELECT email, password_hash, 1, 'EUR', 1 FROM users --`), header: graph})
	if strings.Contains(body, "example.com") || strings.Contains(body, "pbkdf2") {
		t.Errorf("the union search leaked accounts: %.300s", body)
	}
	_, body = e.send(row{as: "anon", method: "GET", path: q(`%`), header: graph})
	if !strings.Contains(body, `"count":0`) {
		t.Errorf("%% matched every product: %.300s", body)
	}
	_, html := e.send(row{as: "anon", method: "GET", path: q(`<script>alert(1)</script>`)})
	if strings.Contains(html, "<script>alert(1)") {
		t.Error("the search is reflected as HTML")
	}
	_, body = e.send(row{as: "anon", method: "GET", path: q(`[x](javascript:alert(1)) ![y](http://evil/y.png)`), header: graph})
	var g protocol.Graph
	json.Unmarshal([]byte(body), &g)
	if g.MD == "" || regexp.MustCompile(`[^\\]\]\(javascript|[^\\]!\[y`).MatchString(g.MD) {
		t.Errorf("the search is live markdown in md: %q", g.MD)
	}
	// The path cleaning redirect stays on this site.
	res, _ := e.send(row{as: "a", method: "GET", path: "//evil.example/checkout"})
	if loc := res.Header.Get("Location"); !strings.HasPrefix(loc, "/") || strings.HasPrefix(loc, "//") {
		t.Errorf("a redirect off the site: %q", loc)
	}
	_, html = e.send(row{as: "a", method: "GET", path: "/account"})
	if strings.Contains(html, "<img src=x") || !strings.Contains(html, "{{.Entities}}") {
		t.Error("a token label is rendered as markup, or not shown as written")
	}
}
