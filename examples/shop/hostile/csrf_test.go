package hostile_test

import (
	"testing"
)

// The CSRF matrix: a call that rides on a cookie (a session or a guest's
// cart) runs only with this site's Origin, for every expose level and for
// agents' calls and forms alike. A bearer call needs none.
func TestHostile_CSRF(t *testing.T) {
	e := newEnv(t, false)
	origins := []struct {
		name   string
		header []string
	}{
		{"no Origin", []string{"Origin", ""}},
		{"Origin null", []string{"Origin", "null"}},
		{"another site", []string{"Origin", "https://evil.example"}},
		{"https instead of http", []string{"Origin", "https" + e.shop.URL[4:]}},
		{"another port", []string{"Origin", "http://127.0.0.1:1"}},
		{"a sub-domain", []string{"Origin", "http://evil.127.0.0.1.nip.io"}},
		{"not an origin", []string{"Origin", "127.0.0.1"}},
		{"only Sec-Fetch-Site", []string{"Origin", "", "Sec-Fetch-Site", "same-origin"}},
		{"only a Referer", []string{"Origin", "", "Referer", e.shop.URL + "/"}},
		{"the Origin with a path", []string{"Origin", e.shop.URL + "/account"}},
	}
	calls := []struct {
		name, as, path, body, form string
	}{
		{"addToCart (public) as a person", "a", "/products/heavyweight-tee", `{"action":"addToCart","input":{"sku":"TEE-BLK-M"}}`, "_action=addToCart&sku=TEE-BLK-M"},
		{"addToCart (public) as a guest", "guest", "/products/heavyweight-tee", `{"action":"addToCart","input":{"sku":"TEE-BLK-M"}}`, "_action=addToCart&sku=TEE-BLK-M"},
		{"createToken (session)", "a", "/account", `{"action":"createToken","input":{"label":"csrf"}}`, "_action=createToken&label=csrf"},
		{"placeOrder (confirm)", "a", "/checkout", `{"action":"placeOrder","confirm":true}`, "_action=placeOrder&_confirm=true"},
	}
	var rows []row
	for _, c := range calls {
		for _, o := range origins {
			rows = append(rows,
				row{name: c.name + ", " + o.name, as: c.as, path: c.path, body: c.body, header: o.header, status: 403, code: "unauthorized"},
				row{name: c.name + ", form, " + o.name, as: c.as, path: c.path, ctype: "form", body: c.form, header: o.header, status: 403})
		}
	}
	rows = append(rows,
		row{name: "an invented cookie is held to the rule too", as: "invented-cookie", path: "/products/heavyweight-tee",
			body: `{"action":"addToCart","input":{"sku":"TEE-BLK-M"}}`, header: []string{"Origin", "https://evil.example"}, status: 403, code: "unauthorized"},
		row{name: "a bearer call from another site is exempt", as: "a-token", path: "/products/heavyweight-tee",
			body: `{"action":"addToCart","input":{"sku":"TEE-WHI-M"}}`, header: []string{"Origin", "https://evil.example"}, status: 200, code: "ok", mayChange: true},
		row{name: "a rejected token does not fall back to the cookie", as: "bad-token", path: "/products/heavyweight-tee",
			body: `{"action":"addToCart","input":{"sku":"TEE-BLK-M"}}`, header: []string{"Cookie", e.actors["a"].cookie, "Origin", e.shop.URL}, status: 401, code: "unauthorized"},
		row{name: "the same Origin runs", as: "a", path: "/products/heavyweight-tee",
			body: `{"action":"addToCart","input":{"sku":"TEE-WHI-M"}}`, status: 200, code: "ok", mayChange: true},
	)
	counts["CSRF"] = e.run(rows)
}
