package hostile_test

import (
	"context"
	"crypto/ed25519"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/affordances-go/affordances/botauth"
	"github.com/affordances-go/affordances/examples/shop/shop"
	"github.com/affordances-go/affordances/site/ratelimit"
)

// A store that verifies agents (a key it knows, and the directories agents
// name, which these tests serve on loopback) and whose people grant their
// tokens: every forged, stale or misdirected signature, every directory
// that misbehaves, every token used beyond its grant, and every order
// beyond a standing approval is refused, and nothing runs.
func TestHostile_SignaturesAndGrants(t *testing.T) {
	_, known, _ := ed25519.GenerateKey(nil)
	_, stranger, _ := ed25519.GenerateKey(nil)
	_, listed, _ := ed25519.GenerateKey(nil)
	verifier := &botauth.Verifier{
		Keys:        []botauth.Key{{Name: "known-agent", Public: known.Public().(ed25519.PublicKey)}},
		Directories: &botauth.DirectoryFetcher{AllowHTTP: true, AllowPrivate: true, Timeout: 500 * time.Millisecond},
	}
	e := newEnvWith(t, shop.Options{DefaultLimit: ratelimit.PerMinute(100_000, 100_000), Agents: verifier})
	host := strings.TrimPrefix(e.shop.URL, "http://")

	// Key directories that misbehave, each on its own origin.
	serve := func(h http.HandlerFunc) string {
		srv := httptest.NewServer(h)
		t.Cleanup(srv.Close)
		return srv.URL
	}
	dirOf := func(keys ...ed25519.PrivateKey) []byte {
		d := botauth.Directory{}
		for _, k := range keys {
			d.Keys = append(d.Keys, botauth.PublicJWK(k.Public().(ed25519.PublicKey)))
		}
		b, _ := json.Marshal(d)
		return b
	}
	dirs := map[string]string{
		"a directory of 1 MB": serve(func(w http.ResponseWriter, r *http.Request) {
			w.Write([]byte(`{"keys":[` + strings.Repeat(" ", 1<<20) + `]}`))
		}),
		"a directory that never ends": serve(func(w http.ResponseWriter, r *http.Request) { time.Sleep(2 * time.Second) }),
		"a directory that lies":       serve(func(w http.ResponseWriter, r *http.Request) { w.Write(dirOf(stranger)) }),
		"a directory of HTML":         serve(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("<html></html>")) }),
		"a directory that fails":      serve(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(500) }),
		"a directory that redirects": serve(func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "http://169.254.169.254/", http.StatusFound)
		}),
		"a directory of no keys": serve(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(`{"keys":[]}`)) }),
		"a directory of other kinds": serve(func(w http.ResponseWriter, r *http.Request) {
			w.Write([]byte(`{"keys":[{"kty":"RSA","n":"x","e":"AQAB"},{"kty":"OKP","crv":"X25519","x":"AAAA"}]}`))
		}),
	}

	// sign signs a POST of path as the signer would, and returns its
	// headers after tamper (nil: none).
	sign := func(s *botauth.Signer, path string, tamper func(h http.Header)) []string {
		r := httptest.NewRequest("POST", "http://"+host+path, nil)
		if err := s.Sign(r); err != nil {
			t.Fatal(err)
		}
		if tamper != nil {
			tamper(r.Header)
		}
		out := []string{}
		for _, k := range []string{"Signature-Input", "Signature", "Signature-Agent"} {
			out = append(out, k, r.Header.Get(k))
		}
		return out
	}
	replace := func(name, old, new string) func(h http.Header) {
		return func(h http.Header) { h.Set(name, strings.Replace(h.Get(name), old, new, 1)) }
	}
	now := time.Now()
	at := func(d time.Duration) func() time.Time { return func() time.Time { return now.Add(d) } }
	good := &botauth.Signer{Key: known}
	const path = "/products/wool-beanie"
	const add = `{"action":"addToCart","input":{"sku":"BEAN-CHA-ONESIZE"}}`
	refused := func(name string, header []string) row {
		return row{name: name, as: "a-token", path: path, body: add, header: header, status: 401, code: "unauthorized"}
	}
	rows := []row{
		refused("a signature with a flipped bit", sign(good, path, func(h http.Header) {
			sig := []byte(h.Get("Signature"))
			sig[10] ^= 0x01
			h.Set("Signature", string(sig))
		})),
		refused("expired an hour ago", sign(&botauth.Signer{Key: known, Now: at(-time.Hour)}, path, nil)),
		refused("expired two minutes ago", sign(&botauth.Signer{Key: known, Now: at(-7 * time.Minute)}, path, nil)),
		refused("created in an hour", sign(&botauth.Signer{Key: known, Now: at(time.Hour)}, path, nil)),
		refused("valid for two days", sign(&botauth.Signer{Key: known, Validity: 48 * time.Hour}, path, nil)),
		refused("an unknown key", sign(&botauth.Signer{Key: stranger}, path, nil)),
		refused("a stranger's signature under the known keyid", sign(&botauth.Signer{Key: stranger}, path,
			replace("Signature-Input", botauth.Thumbprint(stranger.Public().(ed25519.PublicKey)), botauth.Thumbprint(known.Public().(ed25519.PublicKey))))),
		refused("no keyid", sign(good, path, func(h http.Header) {
			in := h.Get("Signature-Input")
			i := strings.Index(in, ";keyid=")
			j := strings.Index(in[i+1:], ";") + i + 1
			h.Set("Signature-Input", in[:i]+in[j:])
		})),
		refused("no expires", sign(good, path, func(h http.Header) {
			in := h.Get("Signature-Input")
			i := strings.Index(in, ";expires=")
			j := strings.Index(in[i+1:], ";") + i + 1
			h.Set("Signature-Input", in[:i]+in[j:])
		})),
		refused("another algorithm", sign(good, path, replace("Signature-Input", `alg="ed25519"`, `alg="hmac-sha256"`))),
		refused("@authority not covered", sign(good, path, replace("Signature-Input", `("@authority")`, `("@method")`))),
		refused("a covered header that is not sent", sign(good, path, replace("Signature-Input", `("@authority")`, `("@authority" "x-missing")`))),
		refused("a component covered twice", sign(good, path, replace("Signature-Input", `("@authority")`, `("@authority" "@authority")`))),
		refused("a derived component that does not exist", sign(good, path, replace("Signature-Input", `("@authority")`, `("@authority" "@nonsense")`))),
		refused("a Signature of another label", sign(good, path, replace("Signature", "sig1=", "sig9="))),
		refused("no Signature at all", sign(good, path, func(h http.Header) { h.Del("Signature") })),
		refused("a Signature that is not base64", sign(good, path, func(h http.Header) { h.Set("Signature", "sig1=:%%%:") })),
		refused("a Signature of 63 bytes", sign(good, path, func(h http.Header) {
			h.Set("Signature", "sig1=:"+strings.Repeat("A", 84)+":")
		})),
		refused("an unterminated Signature-Input", sign(good, path, replace("Signature-Input", `")`, `"`))),
		refused("a Signature-Input with a bad parameter", sign(good, path, replace("Signature-Input", `;tag=`, `;TAG=`+`"x";tag=`))),
		refused("a Signature-Input with a decimal time", sign(good, path, func(h http.Header) {
			in := h.Get("Signature-Input")
			i := strings.Index(in, ";created=") + len(";created=")
			h.Set("Signature-Input", in[:i]+"1.5"+in[i+10:])
		})),
		refused("a Signature-Agent added after signing", sign(good, path, func(h http.Header) { h.Set("Signature-Agent", `"https://agent.example"`) })),
		refused("a Signature-Agent that is no URL", sign(&botauth.Signer{Key: listed, Agent: "https://x.example"}, path,
			func(h http.Header) { h.Set("Signature-Agent", `"javascript:alert(1)"`) })),
	}
	// A signature made for another host, replayed here.
	elsewhere := httptest.NewRequest("POST", "http://shop.example"+path, nil)
	if err := good.Sign(elsewhere); err != nil {
		t.Fatal(err)
	}
	rows = append(rows, refused("a signature made for another host, replayed here",
		[]string{"Signature-Input", elsewhere.Header.Get("Signature-Input"), "Signature", elsewhere.Header.Get("Signature")}))
	for name, origin := range dirs {
		rows = append(rows, refused(name, sign(&botauth.Signer{Key: listed, Agent: origin}, path, nil)))
	}
	// A directory that does list the key, on a host the signature does not
	// name: the Signature-Agent changed after signing.
	honest := serve(func(w http.ResponseWriter, r *http.Request) { w.Write(dirOf(listed)) })
	rows = append(rows, refused("a Signature-Agent changed to an honest directory after signing",
		sign(&botauth.Signer{Key: listed, Agent: dirs["a directory that lies"]}, path, func(h http.Header) { h.Set("Signature-Agent", `"`+honest+`"`) })))

	// Tokens used beyond their grants, and orders beyond standing approvals.
	ctx := context.Background()
	aID, _ := e.shop.Store.UserByEmail(ctx, shop.DemoEmail)
	grant := func(name string, g shop.Grant) {
		tok, err := e.shop.Store.CreateGrantedToken(ctx, aID, name, g)
		if err != nil {
			t.Fatal(err)
		}
		e.actors[name] = actor{token: tok}
	}
	grant("scoped", shop.Grant{Actions: []string{"addToCart"}})
	grant("expired", shop.Grant{Expires: now.Add(-time.Second)})
	grant("revoked", shop.Grant{})
	toks, _ := e.shop.Store.Tokens(ctx, aID)
	for _, tk := range toks {
		if tk.Label == "revoked" {
			e.shop.Store.RevokeToken(ctx, aID, tk.ID)
		}
	}
	grant("cent", shop.Grant{OrderLimit: 1, DayLimit: 1})
	grant("standing", shop.Grant{OrderLimit: 100000, DayLimit: 100000})
	grant("spent", shop.Grant{OrderLimit: 100000, DayLimit: 100000})
	rows = append(rows,
		row{name: "a scoped token's removeFromCart", as: "scoped", path: "/cart", body: `{"action":"removeFromCart","input":{"sku":"BEAN-CHA-ONESIZE"}}`, status: 403, code: "unauthorized"},
		row{name: "a scoped token's setQuantity", as: "scoped", path: "/cart", body: `{"action":"setQuantity","input":{"sku":"BEAN-CHA-ONESIZE","qty":3}}`, status: 403, code: "unauthorized"},
		row{name: "a scoped token's placeOrder", as: "scoped", path: "/checkout", body: `{"action":"placeOrder","confirm":true}`, status: 403, code: "unauthorized"},
		row{name: "a scoped token's cancelOrder", as: "scoped", path: e.orderA, body: `{"action":"cancelOrder","confirm":true}`, status: 403, code: "unauthorized"},
		row{name: "a scoped token's createToken", as: "scoped", path: "/account", body: `{"action":"createToken","input":{}}`, status: 403, code: "unauthorized"},
		row{name: "an agent in the person's page posts createToken as a form body (a script's fetch)", as: "a", path: "/account", ctype: "form",
			header: []string{"Sec-Fetch-Mode", "cors", "Sec-Fetch-Site", "same-origin"},
			body:   url.Values{"_action": {"createToken"}, "label": {"printed at start"}, "perCall": {"1000"}, "perDay": {"5000"}}.Encode(), status: 403},
		row{name: "an agent on the person's cookie calls createToken as JSON (the WebMCP tool's call)", as: "a", path: "/account",
			header: []string{"Sec-Fetch-Mode", "cors", "Sec-Fetch-Site", "same-origin"},
			body:   `{"action":"createToken","input":{"label":"printed at start","perCall":1000,"perDay":5000}}`, status: 403, code: "unauthorized"},
		row{name: "a scoped token's placeOrder by a form", as: "scoped", path: "/checkout", ctype: "form",
			body: url.Values{"_action": {"placeOrder"}, "_confirm": {"true"}}.Encode(), status: 403},
		row{name: "an expired token", as: "expired", path: path, body: add, status: 401, code: "unauthorized"},
		row{name: "a revoked token", as: "revoked", path: path, body: add, status: 401, code: "unauthorized"},
		row{name: "an order one cent over the standing approval", as: "cent", path: "/checkout", body: `{"action":"placeOrder"}`, status: 428, code: "confirm_required"},
		row{name: "an order within the amount, to another address", as: "standing", path: "/checkout",
			body:   `{"action":"placeOrder","input":{"address":{"name":"M","street":"1 Elsewhere","postcode":"10115","city":"Berlin","country":"DE"}}}`,
			status: 428, code: "confirm_required"},
	)
	counts["signatures and grants"] = e.run(rows)

	// Over the day's total: the grant's limit holds inside the order's
	// transaction (concurrent orders: the store's tests on both databases,
	// the cluster on several instances).
	e.shop.Store.PlaceOrderWithGrant(ctx, aID, nil, nil, nil) // empty the cart into an order of the person's
	toks, _ = e.shop.Store.Tokens(ctx, aID)
	var spent *shop.OrderGrant
	for _, tk := range toks {
		if tk.Label == "spent" {
			spent = &shop.OrderGrant{TokenID: tk.ID, Grant: shop.Grant{OrderLimit: 100000, DayLimit: 2900}}
		}
	}
	if _, err := e.shop.Store.AddToCart(ctx, shop.CartOwner{UserID: aID}, "TEE-BLK-M", 2); err != nil {
		t.Fatal(err)
	}
	before := e.shop.Digest(t)
	if _, err := e.shop.Store.PlaceOrderWithGrant(ctx, aID, spent, nil, nil); err == nil {
		t.Error("an order of 58.00 on a day's grant of 29.00 was placed")
	}
	if e.shop.Digest(t) != before {
		t.Error("the refused order changed the store")
	}
	counts["signatures and grants"]++
}
