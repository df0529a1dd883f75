package site_test

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"

	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site"
	"github.com/affordances-go/affordances/site/sitetest"
)

// The form door runs the same actions, and the audit, limiter and internal failures of a call.

func TestForms_RunTheSameActions(t *testing.T) {
	sh := newFixture(t)
	// Success: 303 back to the page.
	w := sh.c.PostForm("/p/tee?x=1", url.Values{"_action": {"addToCart"}, "sku": {"A"}, "qty": {"2"}, "csrf": {"ignored"}})
	if w.Code != 303 || w.Header().Get("Location") != "/p/tee?x=1" || sh.cart["A"] != 2 {
		t.Fatalf("success: %d %v %v", w.Code, w.Header(), sh.cart)
	}
	// Failure: the page again, with the status, the error and the field.
	w = sh.c.PostForm("/p/tee", url.Values{"_action": {"addToCart"}, "sku": {"a b"}, "qty": {"x"}})
	body := w.Body.String()
	if w.Code != 400 || !strings.Contains(body, "invalid_input") || !strings.Contains(body, `aria-invalid="true"`) ||
		!strings.Contains(body, "must be a whole number") || !strings.Contains(body, `value="a b"`) {
		t.Errorf("failure: %d\n%s", w.Code, body)
	}
	if w.Header().Get("Link") == "" {
		t.Errorf("re-rendered page lacks Link")
	}
	// A redirect of the action is followed.
	w = sh.c.PostForm("/p/tee", url.Values{"_action": {"signIn"}})
	if w.Code != 303 || w.Header().Get("Location") != "/p/tee" || !strings.Contains(w.Header().Get("Set-Cookie"), "session=alice") {
		t.Errorf("signIn form: %d %v", w.Code, w.Header())
	}
	// Rate limits apply to forms, with Retry-After.
	for range 2 {
		sh.c.PostForm("/p/tee", url.Values{"_action": {"ping"}, "sku": {"A"}})
	}
	w = sh.c.PostForm("/p/tee", url.Values{"_action": {"ping"}, "sku": {"A"}})
	if w.Code != 429 || w.Header().Get("Retry-After") == "" {
		t.Errorf("limited form: %d %v", w.Code, w.Header())
	}
	// Unknown actions are not found.
	if w := sh.c.PostForm("/p/tee", url.Values{"_action": {"secret"}}); w.Code != 404 {
		t.Errorf("hidden action by form: %d", w.Code)
	}
}
func TestForms_ConfirmShowsAConfirmationPageFirst(t *testing.T) {
	sh := newFixture(t)
	sh.cart["A"] = 2
	w := sh.c.PostForm("/p/tee", url.Values{"_action": {"placeOrder"}, "note": {"gift <wrap>"}}, sitetest.Header(signedIn...))
	body := w.Body.String()
	if w.Code != 428 || !strings.Contains(body, "Place an order for 2 item(s).") ||
		!strings.Contains(body, `name="_confirm" value="true"`) || !strings.Contains(body, `value="gift &lt;wrap&gt;"`) {
		t.Fatalf("confirmation page: %d\n%s", w.Code, body)
	}
	if sh.orderEntries != 0 {
		t.Fatal("ran before confirmation")
	}
	w = sh.c.PostForm("/p/tee", url.Values{"_action": {"placeOrder"}, "_confirm": {"true"}, "note": {"gift <wrap>"}}, sitetest.Header(signedIn...))
	if w.Code != 303 || w.Header().Get("Location") != "/orders/1" || sh.orderEntries != 1 {
		t.Fatalf("confirmed form: %d %v entries %d", w.Code, w.Header(), sh.orderEntries)
	}
}
func TestForms_ConvertValuesByTheSchema(t *testing.T) {
	sh := newFixture(t)
	form := url.Values{"_action": {"kinds"}, "n": {" 7 "}, "f": {"2.5"}, "b": {"on"}, "tags": {"x", "", "y"}, "sizes": {"1", "2"}, "name": {""}}
	if w := sh.c.PostForm("/p/tee", form); w.Code != 303 {
		t.Fatalf("form: %d %s", w.Code, w.Body)
	}
	got := sh.lastKinds
	if got.N != 7 || got.F != 2.5 || !got.B || strings.Join(got.Tags, ",") != "x,y" || len(got.Sizes) != 2 || got.Sizes[1] != 2 || got.Name != "" {
		t.Errorf("decoded %+v", got)
	}
	// An unchecked checkbox is false; omitted optional fields are absent.
	if w := sh.c.PostForm("/p/tee", url.Values{"_action": {"kinds"}, "n": {"0"}}); w.Code != 303 || sh.lastKinds.B {
		t.Errorf("unchecked: %d %+v", w.Code, sh.lastKinds)
	}
	for field, bad := range map[string]string{"n": "1.5", "f": "abc", "b": "maybe", "sizes": "x", "name": "x"} {
		f := url.Values{"_action": {"kinds"}, "n": {"1"}}
		f.Set(field, bad)
		if w := sh.c.PostForm("/p/tee", f); w.Code != 400 {
			t.Errorf("%s=%s: %d", field, bad, w.Code)
		}
	}
	// A required field left empty is reported.
	if w := sh.c.PostForm("/p/tee", url.Values{"_action": {"kinds"}}); w.Code != 400 || !strings.Contains(w.Body.String(), "invalid_input") {
		t.Errorf("missing n: %d", w.Code)
	}
}
func TestAudit_OneRecordPerCall(t *testing.T) {
	sh := newFixture(t)
	sh.c.CallBody("/p/tee", `{"action":"addToCart","input":{"sku":"A"}}`, sitetest.Header(bearer...))
	sh.c.CallBody("/p/tee", `{"action":"nope"}`)
	sh.c.PostForm("/p/tee", url.Values{"_action": {"addToCart"}, "sku": {"A"}}, sitetest.Header(signedIn...))
	lines := strings.Split(strings.TrimSpace(sh.audit.String()), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d records:\n%s", len(lines), sh.audit)
	}
	var recs []map[string]any
	for _, l := range lines {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatal(err)
		}
		recs = append(recs, m)
	}
	want := []map[string]any{
		{"route": "/p/[slug]", "page": "/p/tee", "action": "addToCart", "caller": "tok-1", "auth": "bearer", "confirm": false, "transport": "agent", "result": "ok", "status": 200.0},
		{"action": "nope", "caller": "", "auth": "anonymous", "result": "not_found", "status": 404.0},
		{"action": "addToCart", "caller": "sess-alice", "auth": "cookie", "transport": "form", "result": "ok", "status": 303.0},
	}
	for i, w := range want {
		for k, v := range w {
			if recs[i][k] != v {
				t.Errorf("record %d: %s = %v, want %v", i, k, recs[i][k], v)
			}
		}
		if _, ok := recs[i]["duration"]; !ok {
			t.Errorf("record %d has no duration", i)
		}
	}
}
func TestLimiterFailure_AllowsByDefaultAndIsCounted(t *testing.T) {
	for _, closed := range []bool{false, true} {
		s := site.New(site.Options{Limits: site.LimitOptions{Limiter: failingLimiter{}, FailClosed: closed}})
		p := s.Page("/", site.PageOptions{})
		site.Handle(p, site.Action{Name: "go", Expose: protocol.ExposePublic},
			func(*site.Request, struct{}) (site.Done, error) {
				return site.Done{}, nil
			})
		w := sitetest.New(t, s).CallBody("/", `{"action":"go"}`)
		want := map[bool]int{false: 200, true: 429}[closed]
		if w.Code != want || s.LimiterFaults() != 1 {
			t.Errorf("fail closed %v: status %d, faults %d", closed, w.Code, s.LimiterFaults())
		}
	}
}
func TestInternal_LeaksNothingAndIsLogged(t *testing.T) {
	sh := newFixture(t)
	for _, a := range []string{"explode", "fail"} {
		w := sh.c.CallBody("/faults", `{"action":"`+a+`"}`)
		if strings.Contains(w.Body.String(), "hunter2") || strings.Contains(w.Body.String(), "/var/db") {
			t.Errorf("%s leaks: %s", a, w.Body)
		}
	}
	if !strings.Contains(sh.logs.String(), "hunter2") || !strings.Contains(sh.logs.String(), "disk on fire") {
		t.Errorf("failures not logged: %s", sh.logs)
	}
}
