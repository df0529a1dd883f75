package site_test

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/affordances-go/affordances/internal/wiretest"
	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site"
	"github.com/affordances-go/affordances/site/ratelimit"
	"github.com/affordances-go/affordances/site/sitetest"
)

var (
	signedIn = []string{"Cookie", "session=alice", "Origin", host}
	bearer   = []string{"Authorization", "Bearer good"}
)

func TestErrorCodes_EachHasItsStatusAndGoldenDelta(t *testing.T) {
	cases := []struct {
		name   string
		setup  func(sh *fixture)
		body   string
		header []string
		status int
		code   protocol.ErrorCode
	}{
		{"not_found", nil, `{"action":"nope"}`, nil, 404, protocol.CodeNotFound},
		{"not_found-hidden", nil, `{"action":"secret"}`, nil, 404, protocol.CodeNotFound},
		{"unauthorized-no-session", nil, `{"action":"placeOrder"}`, nil, 401, protocol.CodeUnauthorized},
		{"unauthorized-bad-token", nil, `{"action":"addToCart","input":{"sku":"A"}}`, []string{"Authorization", "Bearer nope"}, 401, protocol.CodeUnauthorized},
		{"unauthorized-origin", nil, `{"action":"addToCart","input":{"sku":"A"}}`, []string{"Cookie", "session=alice", "Origin", "http://evil.example"}, 403, protocol.CodeUnauthorized},
		{"rate_limited", func(sh *fixture) {
			sh.c.CallBody("/p/tee", `{"action":"ping","input":{"sku":"A"}}`)
			sh.c.CallBody("/p/tee", `{"action":"ping","input":{"sku":"A"}}`)
		}, `{"action":"ping","input":{"sku":"A"}}`, nil, 429, protocol.CodeRateLimited},
		{"invalid_input", nil, `{"action":"addToCart","input":{"qty":11,"colour":"red"}}`, nil, 400, protocol.CodeInvalidInput},
		{"invalid_input-not-json", nil, `{"action":`, nil, 400, protocol.CodeInvalidInput},
		{"unavailable-guard", func(sh *fixture) { sh.stock = 0 }, `{"action":"addToCart","input":{"sku":"A"}}`, nil, 409, protocol.CodeUnavailable},
		{"unavailable-declined", nil, `{"action":"decline"}`, nil, 409, protocol.CodeUnavailable},
		{"confirm_required", func(sh *fixture) { sh.cart["A"] = 2 }, `{"action":"placeOrder"}`, bearer, 428, protocol.CodeConfirmRequired},
		{"internal-panic", nil, `{"action":"explode"}`, nil, 500, protocol.CodeInternal},
		{"internal-error", nil, `{"action":"fail"}`, nil, 500, protocol.CodeInternal},
		{"not_found-from-handler", nil, `{"action":"forget","input":{"sku":"NONE"}}`, nil, 404, protocol.CodeNotFound},
		{"invalid_input-from-handler", nil, `{"action":"reserve","input":{"qty":5,"note":"x"}}`, nil, 400, protocol.CodeInvalidInput},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sh := newFixture(t)
			if c.setup != nil {
				c.setup(sh)
			}
			path := "/p/tee"
			if c.code == protocol.CodeInternal {
				path = "/faults"
			}
			w := sh.c.CallBody(path, c.body, sitetest.Header(c.header...))
			if w.Code != c.status || w.ErrorCode() != string(c.code) {
				t.Fatalf("status %d code %s, want %d %s: %s", w.Code, w.ErrorCode(), c.status, c.code, w.Body)
			}
			if w.Header().Get("Content-Type") != protocol.MediaType || w.Header().Get("Cache-Control") != "private, no-store" {
				t.Errorf("headers %v", w.Header())
			}
			if w.Header().Get("Set-Cookie") != "" {
				t.Errorf("a failed call set a cookie: %v", w.Header()["Set-Cookie"])
			}
			wiretest.Valid(t, "delta.schema.json", w.Body.Bytes())
			wiretest.Golden(t, "delta-"+c.name+".json", w.Body.Bytes())
		})
	}
}

func TestRateLimited_RetryAfterIsExact(t *testing.T) {
	sh := newFixture(t)
	ping := `{"action":"ping","input":{"sku":"A"}}`
	sh.c.CallBody("/p/tee", ping)
	sh.c.CallBody("/p/tee", ping)
	w := sh.c.CallBody("/p/tee", ping)
	if w.Code != 429 || w.Header().Get("Retry-After") != "30" {
		t.Fatalf("status %d Retry-After %q", w.Code, w.Header().Get("Retry-After"))
	}
	sh.clock.Advance(29 * time.Second)
	if w := sh.c.CallBody("/p/tee", ping); w.Code != 429 || w.Header().Get("Retry-After") != "1" {
		t.Fatalf("after 29 s: %d, Retry-After %q", w.Code, w.Header().Get("Retry-After"))
	}
	sh.clock.Advance(time.Second)
	if w := sh.c.CallBody("/p/tee", ping); w.Code != 200 {
		t.Fatalf("after waiting Retry-After: %d %s", w.Code, w.Body)
	}
	// Limits are per caller and per action.
	if w := sh.c.CallBody("/p/tee", ping, sitetest.Header(bearer...)); w.Code != 200 {
		t.Errorf("another caller was limited: %d", w.Code)
	}
	if w := sh.c.CallBody("/p/tee", `{"action":"addToCart","input":{"sku":"A"}}`); w.Code != 200 {
		t.Errorf("another action was limited: %d", w.Code)
	}
}

func TestPipelineOrder_FirstFailingStepAnswers(t *testing.T) {
	cases := []struct {
		name   string
		setup  func(sh *fixture)
		body   string
		header []string
		want   protocol.ErrorCode
		status int
	}{
		{"invalid input beats a false guard", nil, `{"action":"never","input":{"qty":99}}`, nil, protocol.CodeInvalidInput, 400},
		{"cross-origin cookie call to an unknown action is not_found", nil, `{"action":"nope"}`,
			[]string{"Cookie", "session=alice", "Origin", "http://evil.example"}, protocol.CodeNotFound, 404},
		{"cross-origin cookie call to a hidden action is not_found", nil, `{"action":"secret"}`,
			[]string{"Cookie", "session=alice"}, protocol.CodeNotFound, 404},
		{"origin beats rate limit", func(sh *fixture) {
			for range 3 {
				sh.c.CallBody("/p/tee", `{"action":"ping","input":{"sku":"A"}}`, sitetest.Header("Cookie", "session=alice", "Origin", host))
			}
		}, `{"action":"ping","input":{"sku":"A"}}`, []string{"Cookie", "session=alice", "Origin", ""}, protocol.CodeUnauthorized, 403},
		{"rate limit beats invalid input", func(sh *fixture) {
			for range 2 {
				sh.c.CallBody("/p/tee", `{"action":"ping","input":{"sku":"A"}}`)
			}
		}, `{"action":"ping","input":{"qty":"x"}}`, nil, protocol.CodeRateLimited, 429},
		{"unauthorized beats invalid input", nil, `{"action":"placeOrder","input":{"note":5}}`, nil, protocol.CodeUnauthorized, 401},
		{"guard beats confirm_required", nil, `{"action":"placeOrder"}`, bearer, protocol.CodeUnavailable, 409},
		{"invalid input beats confirm_required", func(sh *fixture) { sh.cart["A"] = 1 }, `{"action":"placeOrder","input":{"note":5}}`, bearer, protocol.CodeInvalidInput, 400},
		{"a bad bearer token is 401 even with a good cookie", nil, `{"action":"addToCart","input":{"sku":"A"}}`,
			[]string{"Authorization", "Bearer nope", "Cookie", "session=alice", "Origin", host}, protocol.CodeUnauthorized, 401},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sh := newFixture(t)
			if c.setup != nil {
				c.setup(sh)
			}
			w := sh.c.CallBody("/p/tee", c.body, sitetest.Header(c.header...))
			if got := w.ErrorCode(); got != string(c.want) || w.Code != c.status {
				t.Errorf("got %d %s, want %d %s: %s", w.Code, got, c.status, c.want, w.Body)
			}
		})
	}
}

func TestConfirm_HandlerIsNeverEnteredWithoutConfirmTrue(t *testing.T) {
	sh := newFixture(t)
	sh.cart["A"] = 1
	for _, body := range []string{
		`{"action":"placeOrder"}`,
		`{"action":"placeOrder","confirm":false}`,
		`{"action":"placeOrder","confirm":"true"}`,
		`{"action":"placeOrder","confirm":1}`,
		`{"action":"placeOrder","confirm":null}`,
		`{"action":"placeOrder","confirm":[true]}`,
		`{"action":"placeOrder","confirm":{"ok":true}}`,
		`{"action":"placeOrder","Confirm":true}`,
		`{"action":"placeOrder","input":{"confirm":true}}`,
		`{"action":"placeOrder","confirm":true,"confirm":true}`,
		`{"action":"placeOrder","confirm":true,"CONFIRM":false}`,
	} {
		for range 2 { // repeated calls change nothing
			for _, h := range [][]string{bearer, signedIn} {
				w := sh.c.CallBody("/p/tee", body, sitetest.Header(h...))
				if w.Code == 200 {
					t.Errorf("%s ran: %s", body, w.Body)
				}
			}
		}
	}
	for _, form := range []url.Values{
		{"_action": {"placeOrder"}},
		{"_action": {"placeOrder"}, "_confirm": {"yes"}},
		{"_action": {"placeOrder"}, "_confirm": {"1"}},
		{"_action": {"placeOrder"}, "_confirm": {"TRUE"}},
		{"_action": {"placeOrder"}, "confirm": {"true"}},
	} {
		w := sh.c.PostForm("/p/tee", form, sitetest.Header(signedIn...))
		if w.Code == http.StatusSeeOther {
			t.Errorf("form %v ran", form)
		}
	}
	if sh.orderEntries != 0 {
		t.Fatalf("handler entered %d times without confirm: true", sh.orderEntries)
	}
	if w := sh.c.CallBody("/p/tee", `{"action":"placeOrder","confirm":true}`, sitetest.Header(bearer...)); w.Code != 200 {
		t.Fatalf("confirmed call: %d %s", w.Code, w.Body)
	}
	if sh.orderEntries != 1 {
		t.Fatalf("handler entered %d times after one confirmed call", sh.orderEntries)
	}
}

func TestConfirm_SummaryIsWrittenForThePerson(t *testing.T) {
	sh := newFixture(t)
	sh.cart["A"] = 3
	d := sh.c.CallBody("/p/tee", `{"action":"placeOrder"}`, sitetest.Header(bearer...)).Delta()
	if d.Error.Message != "Place an order for 3 item(s)." {
		t.Errorf("summary %q", d.Error.Message)
	}
}

func TestOriginRule_ForCookieCalls(t *testing.T) {
	cases := []struct {
		name   string
		header []string
		status int
	}{
		{"no Origin", []string{"Cookie", "session=alice", "Origin", ""}, 403},
		{"Origin null", []string{"Cookie", "session=alice", "Origin", "null"}, 403},
		{"other scheme", []string{"Cookie", "session=alice", "Origin", "https://example.com"}, 403},
		{"other host", []string{"Cookie", "session=alice", "Origin", "http://evil.example"}, 403},
		{"sub-domain", []string{"Cookie", "session=alice", "Origin", "http://a.example.com"}, 403},
		{"other port", []string{"Cookie", "session=alice", "Origin", "http://example.com:8080"}, 403},
		{"garbage", []string{"Cookie", "session=alice", "Origin", "example.com"}, 403},
		{"only Sec-Fetch-Site", []string{"Cookie", "session=alice", "Origin", "", "Sec-Fetch-Site", "same-origin"}, 403},
		{"guest cookie without Origin", []string{"Cookie", "session=guest", "Origin", ""}, 403},
		{"same origin", []string{"Cookie", "session=alice", "Origin", "http://example.com"}, 200},
		{"same origin, default port, upper case", []string{"Cookie", "session=alice", "Origin", "HTTP://EXAMPLE.COM:80"}, 200},
		{"bearer is exempt", []string{"Authorization", "Bearer good", "Origin", "http://evil.example"}, 200},
		{"anonymous without cookies needs none", nil, 200},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sh := newFixture(t)
			w := sh.c.CallBody("/p/tee", `{"action":"addToCart","input":{"sku":"A"}}`, sitetest.Header(c.header...))
			if w.Code != c.status {
				t.Errorf("status %d, want %d: %s", w.Code, c.status, w.Body)
			}
			// Forms follow the same rule.
			f := sh.c.PostForm("/p/tee", url.Values{"_action": {"addToCart"}, "sku": {"A"}}, sitetest.Header(c.header...))
			if want := map[int]int{200: 303, 403: 403}[c.status]; f.Code != want {
				t.Errorf("form: status %d, want %d", f.Code, want)
			}
		})
	}
}

func TestOriginRule_ConfiguredOrigins(t *testing.T) {
	s := site.New(site.Options{Auth: testAuth, Security: site.SecurityOptions{Origins: []string{"https://shop.example"}}})
	p := s.Page("/", site.PageOptions{})
	site.Handle(p, site.Action{Name: "go", Expose: protocol.ExposePublic},
		func(*site.Request, struct{}) (site.Done, error) {
			return site.Done{}, nil
		})
	if w := sitetest.New(t, s).CallBody("/", `{"action":"go"}`, sitetest.Header("Cookie", "session=alice", "Origin", "https://shop.example")); w.Code != 200 {
		t.Errorf("configured origin: %d", w.Code)
	}
	if w := sitetest.New(t, s).CallBody("/", `{"action":"go"}`, sitetest.Header("Cookie", "session=alice", "Origin", host)); w.Code != 403 {
		t.Errorf("the request's own origin is not listed: %d", w.Code)
	}
}

func TestDecoding_RejectsDuplicateAndCaseVariantKeys(t *testing.T) {
	sh := newFixture(t)
	for _, body := range []string{
		`{"action":"addToCart","input":{"sku":"A","SKU":"B"}}`,
		`{"action":"addToCart","input":{"sku":"A","sku":"B"}}`,
		`{"action":"addToCart","action":"addToCart","input":{"sku":"A"}}`,
		`{"action":"addToCart","Action":"x","input":{"sku":"A"}}`,
		`{"action":"loose","input":{"SKU":"A"}}`,
		`{"action":"loose","input":{"Sku":"A","qty":1}}`,
	} {
		w := sh.c.CallBody("/p/tee", body)
		if w.Code != 400 || w.ErrorCode() != "invalid_input" {
			t.Errorf("%s: %d %s", body, w.Code, w.Body)
		}
	}
	if len(sh.cart) != 0 {
		t.Errorf("a rejected call changed the cart: %v", sh.cart)
	}
	// An explicit permissive schema still decodes the exact names.
	d := sh.c.CallBody("/p/tee", `{"action":"loose","input":{"sku":"A","extra":1}}`).Delta()
	if !d.OK || d.Output.(map[string]any)["sku"] != "A" {
		t.Errorf("loose: %+v", d)
	}
}

func TestDecoding_BodyLimitsAndShape(t *testing.T) {
	sh := newFixture(t)
	big := `{"action":"addToCart","input":{"sku":"` + strings.Repeat("A", 2<<20) + `"}}`
	if w := sh.c.CallBody("/p/tee", big); w.Code != 413 || w.ErrorCode() != "invalid_input" {
		t.Errorf("2 MiB body: %d %s", w.Code, w.Body)
	}
	deep := `{"action":"addToCart","input":{"sku":` + strings.Repeat("[", 10000) + strings.Repeat("]", 10000) + `}}`
	if w := sh.c.CallBody("/p/tee", deep); w.Code != 400 || !strings.Contains(w.Body.String(), "nested") {
		t.Errorf("deep body: %d %s", w.Code, w.Body)
	}
	// Numbers that would cost the validator seconds are refused up front.
	if w := sh.c.CallBody("/p/tee", `{"action":"restock","input":{"n":1e999999999}}`); w.Code != 400 || !strings.Contains(w.Body.String(), "out of range") {
		t.Errorf("huge exponent: %d %s", w.Code, w.Body)
	}
	for _, body := range []string{``, `[]`, `"x"`, `null`, `{"action":5}`, `{"input":{}}`, `{"action":""}`} {
		if w := sh.c.CallBody("/p/tee", body); w.Code != 400 || w.ErrorCode() != "invalid_input" {
			t.Errorf("%q: %d %s", body, w.Code, w.Body)
		}
	}
	// Unknown call fields are ignored; confirm on a non-confirm action too.
	if w := sh.c.CallBody("/p/tee", `{"action":"addToCart","input":{"sku":"A"},"trace":"x","confirm":true}`); w.Code != 200 {
		t.Errorf("unknown field: %d %s", w.Code, w.Body)
	}
	// An omitted input is validated as {}.
	w := sh.c.CallBody("/p/tee", `{"action":"addToCart"}`)
	d := w.Delta()
	if w.Code != 400 || len(d.Error.Issues) != 1 || d.Error.Issues[0] != (protocol.Issue{Path: "/sku", Message: "required", Keyword: "required"}) {
		t.Errorf("omitted input: %s", w.Body)
	}
	if w := sh.c.CallBody("/p/tee", `{"action":"signIn"}`); w.Code != 200 {
		t.Errorf("omitted input of an empty object: %d %s", w.Code, w.Body)
	}
}

func TestInvalidInput_ListsEveryIssue(t *testing.T) {
	sh := newFixture(t)
	d := sh.c.CallBody("/p/tee", `{"action":"addToCart","input":{"sku":"a b","qty":0,"colour":"red","size":"M"}}`).Delta()
	want := []protocol.Issue{
		{Path: "/colour", Message: "is not a field here; the fields are sku, qty", Keyword: "additionalProperties"},
		{Path: "/qty", Message: "must be at least 1", Keyword: "minimum"},
		{Path: "/size", Message: "is not a field here; the fields are sku, qty", Keyword: "additionalProperties"},
		{Path: "/sku", Message: "is not in the expected form: the SKU to add", Keyword: "pattern"},
	}
	if len(d.Error.Issues) != len(want) {
		t.Fatalf("issues %+v", d.Error.Issues)
	}
	for i := range want {
		if d.Error.Issues[i] != want[i] {
			t.Errorf("issue %d: %+v, want %+v", i, d.Error.Issues[i], want[i])
		}
	}
}

func TestContentType_OfACall(t *testing.T) {
	sh := newFixture(t)
	r := func(ct, accept string) int {
		req := strings.NewReader(`{"action":"addToCart","input":{"sku":"A"}}`)
		w := sh.c.Do("POST", "/p/tee", req, sitetest.Header("Content-Type", ct, "Accept", accept))
		return w.Code
	}
	if got := r("application/json", protocol.MediaType); got != 400 {
		t.Errorf("application/json from an agent: %d", got)
	}
	if got := r("text/plain", ""); got != http.StatusUnsupportedMediaType {
		t.Errorf("text/plain: %d", got)
	}
	if got := r(protocol.MediaType+"; charset=utf-8", ""); got != 200 {
		t.Errorf("media type with parameters: %d", got)
	}
}

func TestDelta_ReportsWhatChanged(t *testing.T) {
	sh := newFixture(t)
	// Effects declared: exactly those entities; output and message.
	w := sh.c.CallBody("/p/tee", `{"action":"addToCart","input":{"sku":"A","qty":2}}`, sitetest.Header(bearer...))
	wiretest.Valid(t, "delta.schema.json", w.Body.Bytes())
	wiretest.Golden(t, "delta-ok-addToCart.json", w.Body.Bytes())
	d := w.Delta()
	if !d.OK || len(d.Changed) != 1 || d.Changed["cart"] == nil || d.Message != "Added 2." {
		t.Errorf("delta %s", w.Body)
	}
	// placeOrder became available: it is in actionsAdded.
	if len(d.ActionsAdded) != 1 || d.ActionsAdded[0].Name != "placeOrder" || !d.ActionsAdded[0].Available {
		t.Errorf("actionsAdded %+v", d.ActionsAdded)
	}
	// No effects declared: every entity that differs.
	d = sh.c.CallBody("/p/tee", `{"action":"restock","input":{"n":3}}`).Delta()
	if len(d.Changed) != 1 || d.Changed["product"] == nil || d.Output != nil {
		t.Errorf("restock delta %+v", d)
	}
	// Confirmed order: redirect, several entities, availability flips back.
	w = sh.c.CallBody("/p/tee", `{"action":"placeOrder","confirm":true}`, sitetest.Header(bearer...))
	wiretest.Golden(t, "delta-ok-placeOrder.json", w.Body.Bytes())
	d = w.Delta()
	if d.Redirect != "/orders/1" || d.Changed["orders"] == nil || d.Changed["cart"] == nil || d.Changed["product"] == nil {
		t.Errorf("placeOrder delta %s", w.Body)
	}
}

func TestDelta_CookiesAndCallerChangesOfAnAction(t *testing.T) {
	sh := newFixture(t)
	w := sh.c.CallBody("/p/tee", `{"action":"signIn"}`)
	if !strings.Contains(w.Header().Get("Set-Cookie"), "session=alice") {
		t.Fatalf("no session cookie: %v", w.Header())
	}
	d := w.Delta()
	if d.Redirect != "/p/tee" || len(d.ActionsAdded) == 0 {
		t.Errorf("signIn delta: %s", w.Body)
	}
	for _, a := range d.ActionsAdded {
		if a.Name == "placeOrder" && a.Reason != "the cart is empty" {
			t.Errorf("after sign-in placeOrder should be unavailable for the empty cart, got %+v", a)
		}
	}
}

func TestPOST_IsNowAllowedAndOtherMethodsListIt(t *testing.T) {
	sh := newFixture(t)
	w := sh.c.Do("PUT", "/p/tee", nil)
	if w.Code != 405 || w.Header().Get("Allow") != "GET, HEAD, POST" {
		t.Errorf("PUT: %d %q", w.Code, w.Header().Get("Allow"))
	}
	if w := sh.c.CallBody("/nowhere", `{"action":"x"}`); w.Code != 404 || w.ErrorCode() != "not_found" {
		t.Errorf("call to a path without a graph: %d", w.Code)
	}
	if w := sh.c.CallBody("/p/unknown", `{"action":"addToCart","input":{"sku":"A"}}`); w.Code != 404 || w.ErrorCode() != "not_found" {
		t.Errorf("call to a page whose loader says not found: %d %s", w.Code, w.Body)
	}
}

// failingLimiter is a Limiter whose store is down.
type failingLimiter struct{}

func (failingLimiter) Allow(context.Context, string, ratelimit.Limit) (ratelimit.Decision, error) {
	return ratelimit.Decision{}, errors.New("connection refused")
}

// A call that asks for Markdown (a WebMCP tool's, whose agent reads the
// result) gets the delta as Markdown: the outcome, what changed, what
// became possible and where to go, each as in the JSON delta; failures
// keep their status.
func TestDelta_AsMarkdownForAnAgentThatReadsIt(t *testing.T) {
	sh := newFixture(t)
	md := sitetest.Header(append([]string{"Accept", "text/markdown"}, bearer...)...)
	w := sh.c.CallBody("/p/tee", `{"action":"addToCart","input":{"sku":"A","qty":2}}`, md)
	if w.Code != 200 || !strings.HasPrefix(w.Header().Get("Content-Type"), "text/markdown") || w.Header().Get("Cache-Control") != "private, no-store" {
		t.Fatalf("%d %v", w.Code, w.Header())
	}
	wiretest.GoldenText(t, "delta-ok-addToCart.md", w.Body.Bytes())
	w = sh.c.CallBody("/p/tee", `{"action":"addToCart","input":{"sku":"A","qty":0}}`, md)
	if w.Code != 400 || !strings.HasPrefix(w.Body.String(), "Not done (invalid_input)") {
		t.Fatalf("invalid input in Markdown: %d %s", w.Code, w.Body)
	}
	// A reader whose actions are tools (the WebMCP script) gets the
	// actions that changed without their inputs: its tools have them.
	tools := sitetest.Header(append([]string{"Accept", "text/markdown; actions=tools"}, bearer...)...)
	w = newFixture(t).c.CallBody("/p/tee", `{"action":"addToCart","input":{"sku":"A","qty":1}}`, tools)
	if body := w.Body.String(); w.Code != 200 || !strings.Contains(body, "- `placeOrder`: Order what is in the cart. Available") || strings.Contains(body, "Input:") {
		t.Errorf("for tools: %d\n%s", w.Code, body)
	}
	w = sh.c.CallBody("/p/tee", `{"action":"placeOrder","confirm":true}`, md)
	wiretest.GoldenText(t, "delta-ok-placeOrder.md", w.Body.Bytes())
}
