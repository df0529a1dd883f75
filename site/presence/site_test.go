package presence

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"html"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site"
	"github.com/affordances-go/affordances/site/approval"
)

// keysInput is the input of the test site's people-only action.
type keysInput struct {
	Label string `json:"label"`
	Limit int    `json:"limit,omitempty"`
}

// dropInput is the input of the test site's removal of a passkey.
type dropInput struct {
	ID string `json:"id"`
}

type orderInput struct {
	Note string `json:"note,omitempty"`
}

func (orderInput) Summary(r *site.Request, st *site.State) string { return "Place an order." }

// testSite is a site with passkeys: a people-only action, and an action
// that needs the person's approval.
type testSite struct {
	srv          *httptest.Server
	p            *Passkeys
	made, orders atomic.Int64
}

func newTestSite(t *testing.T) *testSite {
	ts := &testSite{}
	ts.srv = httptest.NewUnstartedServer(nil)
	origin := "http://" + ts.srv.Listener.Addr().String()
	var err error
	ts.p, err = New(Options{RPID: "127.0.0.1", RPName: "Test", Origins: []string{origin}})
	if err != nil {
		// 127.0.0.1 is no domain: the browser would refuse it, the library
		// may too. The site's tests use localhost.
		ts.p, err = New(Options{RPID: "localhost", RPName: "Test", Origins: []string{origin}})
		if err != nil {
			t.Fatal(err)
		}
	}
	auth := site.AuthFunc(func(r *http.Request) (site.Caller, error) {
		if tok, ok := site.BearerToken(r); ok && tok == "agent" {
			return site.Caller{ID: "tok-1", Account: "ann", Mode: protocol.AuthBearer, SignedIn: true, Label: "the agent"}, nil
		}
		if c, err := r.Cookie("session"); err == nil {
			return site.Caller{ID: "sess-" + c.Value, Account: c.Value, Mode: protocol.AuthCookie, SignedIn: true}, nil
		}
		return site.Caller{}, nil
	})
	s := site.New(site.Options{Auth: auth, Logger: slog.New(slog.DiscardHandler)})
	approval.Mount(s, &approval.Options{Presence: ts.p, Logger: slog.New(slog.DiscardHandler)})
	Mount(s, ts.p)
	p := s.Page("/account", site.PageOptions{Load: func(r *site.Request) (*site.State, error) { return &site.State{}, nil }})
	site.Handle(p, site.Action{Name: "makeKey", Expose: protocol.ExposeSession, PeopleOnly: true},
		func(r *site.Request, in keysInput) (site.Done, error) { ts.made.Add(1); return site.Done{}, nil })
	site.Handle(p, site.Action{Name: "dropKey", Expose: protocol.ExposeSession, PeopleOnly: true},
		func(r *site.Request, in dropInput) (site.Done, error) {
			id, err := base64.RawURLEncoding.DecodeString(in.ID)
			if err != nil {
				return site.Done{}, site.NotFound("no such passkey")
			}
			var refused *Refusal
			if err := ts.p.Remove(r, id); errors.As(err, &refused) {
				return site.Done{}, site.Unavailable("not removed: %s", refused.Reason())
			} else if err != nil {
				return site.Done{}, err
			}
			return site.Done{}, nil
		})
	site.Handle(p, site.Action{Name: "order", Expose: protocol.ExposeConfirm, RequireApproval: true},
		func(r *site.Request, in orderInput) (site.Done, error) { ts.orders.Add(1); return site.Done{}, nil })
	ts.srv.Config.Handler = s
	ts.srv.Start()
	t.Cleanup(ts.srv.Close)
	return ts
}

func (ts *testSite) post(t *testing.T, path string, form url.Values, header ...string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", ts.srv.URL+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", ts.srv.URL)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := (&http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

// The people-only form of a person with a passkey runs only with a proof
// of exactly its fields; the approval page takes an approval only with a
// proof of that approval.
func TestSite_PresenceOnTheFormsAndTheApprovalPage(t *testing.T) {
	ts := newTestSite(t)
	cookie := []string{"Cookie", "session=ann"}
	fields := url.Values{"_action": {"makeKey"}, "label": {"laptop"}, "limit": {"50"}}
	if code, _ := ts.post(t, "/account", fields, cookie...); code != 303 || ts.made.Load() != 1 {
		t.Fatalf("without a passkey, the person's form: %d, made %d", code, ts.made.Load())
	}

	// The person registers a passkey (the test's soft key).
	k := enrolSoft(t, ts)

	if code, body := ts.post(t, "/account", fields, cookie...); code != 403 || !strings.Contains(body, "passkey") || ts.made.Load() != 1 {
		t.Fatalf("a passkey, and a form without its proof: %d, made %d", code, ts.made.Load())
	}
	ask := func(f url.Values) []byte {
		q := url.Values{"_page": {"/account"}}
		for key, v := range f {
			q[key] = v
		}
		code, body := ts.post(t, Path, q, cookie...)
		if code != 200 {
			t.Fatalf("the challenge: %d %s", code, body)
		}
		return []byte(body)
	}
	proof := k.proof(t, ask(fields))
	with := func(f url.Values, proof string) url.Values {
		g := url.Values{}
		for key, v := range f {
			g[key] = v
		}
		g.Set(site.FormProofField, proof)
		return g
	}
	wider := url.Values{"_action": {"makeKey"}, "label": {"laptop"}, "limit": {"5000"}}
	if code, _ := ts.post(t, "/account", with(wider, proof), cookie...); code != 403 || ts.made.Load() != 1 {
		t.Fatalf("a proof of one form, posted with another limit: %d, made %d", code, ts.made.Load())
	}
	proof = k.proof(t, ask(fields))
	if code, body := ts.post(t, "/account", with(fields, proof), cookie...); code != 303 || ts.made.Load() != 2 {
		t.Fatalf("the form with its proof: %d %s, made %d", code, body, ts.made.Load())
	}
	if code, _ := ts.post(t, "/account", with(fields, proof), cookie...); code != 403 || ts.made.Load() != 2 {
		t.Fatalf("the proof again: %d, made %d", code, ts.made.Load())
	}
	if code, _ := ts.post(t, Path, url.Values{"_page": {"/account"}, "_action": {"makeKey"}}, "Cookie", "session=ann", "Origin", "http://evil.example"); code != 403 {
		t.Fatalf("a challenge for another site's page: %d", code)
	}

	// An agent asks for two approvals; the person approves each with its
	// own proof only.
	call := func(note string) string {
		req, _ := http.NewRequest("POST", ts.srv.URL+"/account", strings.NewReader(`{"action":"order","confirm":true,"input":{"note":"`+note+`"}}`))
		req.Header.Set("Content-Type", protocol.MediaType)
		req.Header.Set("Authorization", "Bearer agent")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var d protocol.Delta
		json.NewDecoder(res.Body).Decode(&d)
		return d.ApprovalURL
	}
	u1, u2 := call("one"), call("two")
	page := func(u string) []byte {
		req, _ := http.NewRequest("GET", ts.srv.URL+u, nil)
		req.Header.Set("Cookie", "session=ann")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		m := regexp.MustCompile(`(?s)id="affordances-presence-ask">(.*?)</script>`).FindSubmatch(b)
		if m == nil || !strings.Contains(string(b), "data-presence") {
			t.Fatalf("the approval page asks for no passkey:\n%s", b)
		}
		return []byte(html.UnescapeString(string(m[1])))
	}
	approve := func(u, proof string) int {
		f := url.Values{"_decision": {"approve"}}
		if proof != "" {
			f.Set(site.FormProofField, proof)
		}
		code, _ := ts.post(t, u, f, cookie...)
		return code
	}
	if code := approve(u1, ""); code != 403 {
		t.Fatalf("an approval without a proof: %d", code)
	}
	p1 := k.proof(t, page(u1))
	if code := approve(u2, p1); code != 403 {
		t.Fatalf("the proof of one approval, for another: %d", code)
	}
	p1 = k.proof(t, page(u1))
	if code := approve(u1, p1); code != 200 {
		t.Fatalf("the approval with its proof: %d", code)
	}
	if code, _ := ts.post(t, u2, url.Values{"_decision": {"decline"}}, cookie...); code != 200 {
		t.Fatalf("declining needs no proof: %d", code)
	}
}

// enrolSoft registers a soft key for ann through the register endpoint.
func enrolSoft(t *testing.T, ts *testSite) *softKey {
	t.Helper()
	code, body := ts.post(t, RegisterPath, url.Values{}, "Cookie", "session=ann")
	if code != 200 {
		t.Fatalf("the registration options: %d %s", code, body)
	}
	k := newSoftKey(t, ts.p.o.RPID, ts.srv.URL)
	_, _, nonce := readAsk(t, []byte(body))
	if _, err := ts.p.FinishRegistration(context.Background(), "ann", nonce, k.create(t, []byte(body)), "soft"); err != nil {
		t.Fatal(err)
	}
	return k
}

// proof answers an ask with the proof a page posts.
func (k *softKey) proof(t *testing.T, ask []byte) string {
	t.Helper()
	p, _ := k.get(t, ask)
	return p
}

// The person's own form of an action with approval (an order) needs the
// same proof once the person has a passkey: an agent that drives the
// browser and presses the button, or posts the form past the script, gets
// nothing run. The proof binds the form's fields and the basis of the
// summary the person confirmed; without a passkey the form runs as
// before.
func TestSite_PresenceOnTheFormOfAnActionWithApproval(t *testing.T) {
	ts := newTestSite(t)
	cookie := []string{"Cookie", "session=ann"}
	fields := url.Values{"_action": {"order"}, "note": {"gift"}, "_confirm": {"true"}, "_basis": {"cart-1"}}
	if code, _ := ts.post(t, "/account", fields, cookie...); code != 303 || ts.orders.Load() != 1 {
		t.Fatalf("without a passkey, the person's confirmed form: %d, %d orders", code, ts.orders.Load())
	}
	k := enrolSoft(t, ts)
	if code, body := ts.post(t, "/account", fields, cookie...); code != 403 || !strings.Contains(body, "passkey") || ts.orders.Load() != 1 {
		t.Fatalf("a passkey, and the confirmed form without its proof: %d, %d orders", code, ts.orders.Load())
	}
	unconfirmed := url.Values{"_action": {"order"}, "note": {"gift"}}
	if code, body := ts.post(t, "/account", unconfirmed, cookie...); code != 428 || !strings.Contains(body, "data-presence") || ts.orders.Load() != 1 {
		t.Fatalf("the form before confirming shows a confirmation that asks the passkey: %d, %d orders\n%s", code, ts.orders.Load(), body)
	}
	ask := func(f url.Values) []byte {
		q := url.Values{"_page": {"/account"}}
		for key, v := range f {
			q[key] = v
		}
		code, body := ts.post(t, Path, q, cookie...)
		if code != 200 || !strings.Contains(body, "publicKey") {
			t.Fatalf("the challenge: %d %s", code, body)
		}
		return []byte(body)
	}
	with := func(f url.Values, proof string) url.Values {
		g := url.Values{}
		for key, v := range f {
			g[key] = v
		}
		g.Set(site.FormProofField, proof)
		return g
	}
	for _, other := range []url.Values{
		{"_action": {"order"}, "note": {"to the agent"}, "_confirm": {"true"}, "_basis": {"cart-1"}},
		{"_action": {"order"}, "note": {"gift"}, "_confirm": {"true"}, "_basis": {"cart-2"}},
	} {
		if code, _ := ts.post(t, "/account", with(other, k.proof(t, ask(fields))), cookie...); code != 403 || ts.orders.Load() != 1 {
			t.Fatalf("a proof of one form, posted with %v: %d, %d orders", other, code, ts.orders.Load())
		}
	}
	proof := k.proof(t, ask(fields))
	if code, body := ts.post(t, "/account", with(fields, proof), cookie...); code != 303 || ts.orders.Load() != 2 {
		t.Fatalf("the form with its proof: %d %s, %d orders", code, body, ts.orders.Load())
	}
	if code, _ := ts.post(t, "/account", with(fields, proof), cookie...); code != 403 || ts.orders.Load() != 2 {
		t.Fatalf("the proof again: %d, %d orders", code, ts.orders.Load())
	}
}

// A flood of anonymous sign-in challenges from one address is cut off
// after a short burst (429 with Retry-After), so the challenges stored
// stay bounded; the ceremony's other endpoints share the budget.
func TestSite_ChallengesAreBoundedPerAddress(t *testing.T) {
	ts := newTestSite(t)
	ok, limited := 0, 0
	for range 40 {
		switch code, _ := ts.post(t, SignInPath, url.Values{}); code {
		case http.StatusOK:
			ok++
		case http.StatusTooManyRequests:
			limited++
		default:
			t.Fatalf("a sign-in challenge: %d", code)
		}
	}
	if ok > 12 || limited < 28 {
		t.Errorf("40 anonymous challenges from one address: %d answered, %d limited", ok, limited)
	}
	if code, _ := ts.post(t, Path+"/register", url.Values{}, "Cookie", "session=ann"); code != http.StatusTooManyRequests {
		t.Errorf("a registration from the same address after the flood: %d", code)
	}
}

// A passkey added within the cooling-off period cannot remove an older
// one, even with its own valid confirmation: an authenticator slipped in
// by an agent cannot lock the person's own passkey out. The older passkey
// removes the newer one, a new passkey removes itself, and once the
// period is over the newer one may remove the older.
func TestSite_ANewPasskeyCannotRemoveAnOlderOne(t *testing.T) {
	ts := newTestSite(t)
	cookie := []string{"Cookie", "session=ann"}
	mem := ts.p.o.Store.(*Memory)
	age := func(name string, d time.Duration) []byte {
		mem.mu.Lock()
		defer mem.mu.Unlock()
		for i, c := range mem.creds["ann"] {
			if c.Name == name {
				mem.creds["ann"][i].Created = time.Now().Add(-d)
				return c.ID
			}
		}
		t.Fatalf("no passkey %q", name)
		return nil
	}
	drop := func(k *softKey, id []byte) (int, string) {
		f := url.Values{"_action": {"dropKey"}, "id": {base64.RawURLEncoding.EncodeToString(id)}}
		q := url.Values{"_page": {"/account"}}
		for key, v := range f {
			q[key] = v
		}
		code, ask := ts.post(t, Path, q, cookie...)
		if code != 200 {
			t.Fatalf("the challenge: %d %s", code, ask)
		}
		f.Set(site.FormProofField, k.proof(t, []byte(ask)))
		return ts.post(t, "/account", f, cookie...)
	}
	count := func() int {
		cs, _ := mem.Credentials(context.Background(), "ann")
		return len(cs)
	}

	old := enrolSoft(t, ts)
	oldID := age("soft", 30*24*time.Hour)
	mem.mu.Lock()
	mem.creds["ann"][0].Name = "old"
	mem.mu.Unlock()
	young := enrolSoft(t, ts)
	youngID := age("soft", time.Hour)

	if code, body := drop(young, oldID); code != 409 || !strings.Contains(body, "cannot remove an older one") || count() != 2 {
		t.Fatalf("an hour-old passkey removing a month-old one: %d, %d left\n%s", code, count(), body)
	}
	if code, body := drop(old, youngID); code != 303 || count() != 1 {
		t.Fatalf("the old passkey removing the new one: %d %s, %d left", code, body, count())
	}

	// A new passkey may remove itself; after the period, an older one.
	young = enrolSoft(t, ts)
	youngID = age("soft", time.Hour)
	if code, body := drop(young, youngID); code != 303 || count() != 1 {
		t.Fatalf("a new passkey removing itself: %d %s, %d left", code, body, count())
	}
	young = enrolSoft(t, ts)
	age("soft", 25*time.Hour)
	if code, body := drop(young, oldID); code != 303 || count() != 1 {
		t.Fatalf("a passkey past the cooling-off removing an older one: %d %s, %d left", code, body, count())
	}
}

// A site's CheckRegister runs before the options of a new passkey are
// given: a refused form (a wrong password) is answered with the site's
// message and the field it is about, as JSON for the page's script, and no
// ceremony begins, so the browser makes no passkey the site would refuse.
func TestSite_TheFormIsCheckedBeforeAPasskeyIsMade(t *testing.T) {
	ts := newTestSite(t)
	var seen url.Values
	ts.p.o.CheckRegister = func(r *site.Request, form url.Values) error {
		seen = form
		if form.Get("password") != "right" {
			return site.Invalid("/password", "this is not your password")
		}
		return nil
	}
	code, body := ts.post(t, RegisterPath, url.Values{"name": {"my phone"}, "password": {"wrong"}, "credential": {"x"}}, "Cookie", "session=ann")
	var r struct {
		Message string `json:"message"`
		Issues  []struct {
			Path    string `json:"path"`
			Message string `json:"message"`
		} `json:"issues"`
	}
	if err := json.Unmarshal([]byte(body), &r); code != 400 || err != nil || len(r.Issues) != 1 || r.Issues[0].Path != "/password" ||
		r.Issues[0].Message != "this is not your password" || strings.Contains(body, "publicKey") {
		t.Fatalf("a wrong password: %d %s", code, body)
	}
	if seen.Get("name") != "my phone" || seen.Has("credential") {
		t.Errorf("the check saw %v: the form's fields, without a credential", seen)
	}
	if code, body := ts.post(t, RegisterPath, url.Values{"name": {"my phone"}, "password": {"right"}}, "Cookie", "session=ann"); code != 200 || !strings.Contains(body, "publicKey") {
		t.Fatalf("the right password: %d %s", code, body)
	}
}
