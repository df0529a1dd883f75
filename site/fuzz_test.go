package site_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site/sitetest"
)

var agentStatuses = map[int]bool{200: true, 400: true, 401: true, 403: true, 404: true, 409: true, 413: true, 428: true, 429: true}

// FuzzCallDecoder posts arbitrary bodies as agent calls. Whatever the body,
// the answer is a delta with one of the protocol's statuses, never a panic
// or a 500, and a call that succeeds names a real action.
func FuzzCallDecoder(f *testing.F) {
	for _, s := range []string{
		`{"action":"addToCart","input":{"sku":"A","qty":2}}`,
		`{"action":"placeOrder","confirm":true}`,
		`{"action":"kinds","input":{"n":1,"tags":["a"],"sizes":[1]}}`,
		`{"action":"loose","input":{"Sku":"A"}}`,
		`{"action":"addToCart","input":{"sku":"A","SKU":"B"}}`,
		`{"action":"restock","input":{"n":1e400}}`,
		`[[[[`, `{}`, `{"action":"\u0000"}`,
	} {
		f.Add([]byte(s))
	}
	sh := newFuzzFixture(f)
	sh.c.Jar = nil // every input starts from the same cookies: none
	f.Fuzz(func(t *testing.T, body []byte) {
		sh.clock.Advance(time.Minute) // keep the rate limit from answering every input
		w := sh.c.CallBody("/p/tee", string(body), sitetest.Header("Authorization", "Bearer good"))
		if !agentStatuses[w.Code] {
			t.Fatalf("status %d for %q: %s", w.Code, body, w.Body)
		}
		var d protocol.Delta
		if err := json.Unmarshal(w.Body.Bytes(), &d); err != nil {
			t.Fatalf("not a delta for %q: %s", body, w.Body)
		}
		if d.OK != (w.Code == 200) || (!d.OK && (d.Error == nil || d.Error.Code.Status() != w.Code &&
			w.Code != 403 && w.Code != 413)) {
			t.Fatalf("delta %s does not match status %d", w.Body, w.Code)
		}
	})
}

// FuzzFormDecoder posts arbitrary urlencoded bodies as HTML forms.
func FuzzFormDecoder(f *testing.F) {
	for _, s := range []string{
		"_action=addToCart&sku=A&qty=2",
		"_action=kinds&n=1&f=2.5&b=on&tags=x&tags=y&sizes=1",
		"_action=placeOrder&_confirm=true&note=x",
		"_action=kinds&n=%zz", "_action=&&&=", "sku=A",
	} {
		f.Add(s)
	}
	sh := newFuzzFixture(f)
	sh.c.Jar = nil // every input starts from the same cookies: none
	f.Fuzz(func(t *testing.T, body string) {
		sh.clock.Advance(time.Minute)
		w := sh.c.Do("POST", "/p/tee", strings.NewReader(body),
			sitetest.Header("Content-Type", "application/x-www-form-urlencoded", "Authorization", "Bearer good"))
		if w.Code >= 500 || (w.Code != 303 && !agentStatuses[w.Code]) {
			t.Fatalf("status %d for %q: %s", w.Code, body, w.Body)
		}
	})
}
