package site_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site"
	"github.com/affordances-go/affordances/site/approval"
	"github.com/affordances-go/affordances/site/inspector"
	"github.com/affordances-go/affordances/site/sitetest"
)

// The approval rule depends on who calls, never on the door: an agent's
// credential on any transport needs the person's approval; only the
// person's own form, in their cookie session with the site's Origin,
// confirms on the confirmation page.
func TestApproval_WhateverTheDoor(t *testing.T) {
	multipartBody := func(fields map[string]string) (string, string) {
		var b bytes.Buffer
		w := multipart.NewWriter(&b)
		for k, v := range fields {
			w.WriteField(k, v)
		}
		w.Close()
		return b.String(), w.FormDataContentType()
	}
	formFields := map[string]string{"_action": "placeOrder", "_confirm": "true", "note": "gift"}
	form := url.Values{}
	for k, v := range formFields {
		form.Set(k, v)
	}
	mp, mpType := multipartBody(formFields)
	jsonCall := `{"action":"placeOrder","confirm":true,"input":{"note":"gift"}}`

	type door struct {
		name    string
		send    func(c *sitetest.Client, hdr ...string) int // the status
		inspect bool                                        // the inspector answers 200 with the delta in its page
	}
	doors := []door{
		{"json", func(c *sitetest.Client, hdr ...string) int {
			return c.CallBody("/checkout", jsonCall, sitetest.Header(hdr...)).Code
		}, false},
		{"form", func(c *sitetest.Client, hdr ...string) int {
			return c.PostForm("/checkout", form, sitetest.Header(hdr...)).Code
		}, false},
		{"multipart", func(c *sitetest.Client, hdr ...string) int {
			return c.Do(http.MethodPost, "/checkout", strings.NewReader(mp), sitetest.Header(append([]string{"Content-Type", mpType}, hdr...)...)).Code
		}, false},
		{"inspector", func(c *sitetest.Client, hdr ...string) int {
			res := c.PostForm(inspector.Path, url.Values{"page": {"/checkout"}, "action": {"placeOrder"}, "input": {`{"note":"gift"}`}, "confirm": {"true"}}, sitetest.Header(hdr...))
			if !strings.Contains(res.Body.String(), "confirm_required") {
				return res.Code
			}
			return 428
		}, true},
	}
	callers := []struct {
		name   string
		hdr    []string
		person bool // the person's own form: runs on _confirm
	}{
		{"bearer", []string{"Authorization", "Bearer agent-a"}, false},
		{"cookie", []string{"Cookie", "session=alice"}, true},
		{"bearer and cookie", []string{"Authorization", "Bearer agent-a", "Cookie", "session=alice"}, false},
	}
	for _, d := range doors {
		for _, who := range callers {
			t.Run(d.name+"/"+who.name, func(t *testing.T) {
				sh := newApprovalShopWith(t, site.Options{}, 0)
				inspector.Mount(sh.site)
				c := sitetest.New(t, sh.site)
				status := d.send(c, who.hdr...)
				runs := who.person && (d.name == "form" || d.name == "multipart")
				if runs {
					if status != http.StatusSeeOther || sh.ran() != 1 {
						t.Fatalf("the person's own form: %d, ran %d", status, sh.ran())
					}
					return
				}
				if status != http.StatusPreconditionRequired || sh.ran() != 0 {
					t.Fatalf("an agent's call without approval: %d, ran %d", status, sh.ran())
				}
			})
		}
	}
}

// An agent's form post is an agent's call in every way: it gets an
// approval page, and runs with the approval the person gave, once.
func TestApproval_AnAgentsFormPostNeedsTheApproval(t *testing.T) {
	sh := newApprovalShop(t, time.Minute)
	c := sitetest.New(t, sh.site)
	form := url.Values{"_action": {"placeOrder"}, "_confirm": {"true"}, "note": {"gift"}}
	res := c.PostForm("/checkout", form, sitetest.Header("Authorization", "Bearer agent-a"))
	if res.Code != 428 || !strings.Contains(res.Body.String(), "/approvals/") || strings.Contains(res.Body.String(), `name="_confirm"`) {
		t.Fatalf("an agent's form: %d %s", res.Code, res.Body)
	}
	i := strings.Index(res.Body.String(), "/approvals/")
	u := res.Body.String()[i : i+len("/approvals/")+32]
	if code := decide(t, c, u, "alice", "approve"); code != 200 {
		t.Fatalf("approve: %d", code)
	}
	form.Set("_approval", u)
	if res := c.PostForm("/checkout", form, sitetest.Header("Authorization", "Bearer agent-a")); res.Code != 303 || sh.ran() != 1 {
		t.Fatalf("with the approval: %d, ran %d", res.Code, sh.ran())
	}
	if res := c.PostForm("/checkout", form, sitetest.Header("Authorization", "Bearer agent-a")); res.Code != 428 || sh.ran() != 1 {
		t.Fatalf("the approval again: %d, ran %d", res.Code, sh.ran())
	}
}

// A person can withdraw an approval until it is used.
func TestApproval_Withdrawn(t *testing.T) {
	sh := newApprovalShop(t, time.Minute)
	c := sitetest.New(t, sh.site)
	_, u, _ := ask(t, c, "agent-a", "gift", "")
	decide(t, c, u, "alice", "approve")
	page := c.Get(u, sitetest.Header("Cookie", "session=alice")).Body.String()
	if !strings.Contains(page, `value="decline"`) {
		t.Errorf("an approved approval's page offers no way to withdraw it:\n%s", page)
	}
	if code := decide(t, c, u, "alice", "decline"); code != 200 {
		t.Fatalf("withdraw: %d", code)
	}
	if code, _, msg := ask(t, c, "agent-a", "gift", u); code != "confirm_required" || !strings.Contains(msg, "declined") || sh.ran() != 0 {
		t.Fatalf("a withdrawn approval: %s %q, ran %d", code, msg, sh.ran())
	}
	// Once used, it stays used.
	_, u, _ = ask(t, c, "agent-a", "gift", "")
	decide(t, c, u, "alice", "approve")
	if code, _, _ := ask(t, c, "agent-a", "gift", u); code != "ok" {
		t.Fatalf("the approved call: %s", code)
	}
	decide(t, c, u, "alice", "decline")
	status := c.Get(u, sitetest.Header("Cookie", "session=alice", "Accept", "application/json")).Body.String()
	if !strings.Contains(status, `"state":"used"`) {
		t.Errorf("a used approval after a late decline: %s", status)
	}
}

// An approval is the credential's that asked: another token of the same
// person, or the person's own session, cannot use it.
func TestApproval_BoundToTheCredentialThatAsked(t *testing.T) {
	sh := newApprovalShop(t, time.Minute)
	c := sitetest.New(t, sh.site)
	_, u, _ := ask(t, c, "agent-a", "gift", "")
	decide(t, c, u, "alice", "approve")
	if code, _, msg := ask(t, c, "agent-a2", "gift", u); code != "confirm_required" || !strings.Contains(msg, "another credential") || sh.ran() != 0 {
		t.Fatalf("another token of the person: %s %q, ran %d", code, msg, sh.ran())
	}
	body := fmt.Sprintf(`{"action":"placeOrder","confirm":true,"input":{"note":"gift"},"approval":%q}`, u)
	if d := c.CallBody("/checkout", body, sitetest.Header("Cookie", "session=alice")).Delta(); d.OK || sh.ran() != 0 {
		t.Fatalf("the person's session: %+v, ran %d", d, sh.ran())
	}
	if code, _, _ := ask(t, c, "agent-a", "gift", u); code != "ok" || sh.ran() != 1 {
		t.Fatalf("the credential that asked: %s, ran %d", code, sh.ran())
	}
}

// A header that names the Bearer scheme without a well-formed token is
// refused, never read as a request without one.
func TestBearer_MalformedIsUnauthorized(t *testing.T) {
	sh := newApprovalShop(t, time.Minute)
	c := sitetest.New(t, sh.site)
	for _, h := range []string{"Bearer\tagent-a", "Bearer", "Bearer ", "bearer  ", "Bearer agent-a extra", "Bearer a\x01b"} {
		res := c.CallBody("/checkout", `{"action":"placeOrder"}`, sitetest.Header("Authorization", h, "Cookie", "session=alice"))
		if res.Code != 401 || res.Header().Get("WWW-Authenticate") == "" {
			t.Errorf("Authorization %q: %d", h, res.Code)
		}
	}
	if res := c.CallBody("/checkout", `{"action":"placeOrder"}`, sitetest.Header("Authorization", "bearer   agent-a")); res.Code != 428 {
		t.Errorf("a well-formed token with extra spaces: %d", res.Code)
	}
}

// A form from another site is refused whatever it carries: no cookie (a
// sign-in form: login CSRF), or a browser's word that it is cross-site.
func TestOrigin_CrossSiteFormsAreRefused(t *testing.T) {
	s := site.New(site.Options{Auth: approvalAuth, Logger: slog.New(slog.DiscardHandler), AuditLogger: slog.New(slog.DiscardHandler)})
	var signedIn int
	p := s.Page("/login", site.PageOptions{View: shopView})
	site.Handle(p, site.Action{Name: "signIn", Expose: protocol.ExposePublic}, func(r *site.Request, in struct{}) (site.Done, error) {
		signedIn++
		return site.Done{}, nil
	})
	c := sitetest.New(t, s)
	for _, hdr := range [][]string{
		{"Origin", "https://evil.example"},
		{"Origin", "null"},
		{"Sec-Fetch-Site", "cross-site"},
		{"Origin", "https://evil.example", "Cookie", "session=alice"},
	} {
		if res := c.PostForm("/login", url.Values{"_action": {"signIn"}}, sitetest.Header(hdr...)); res.Code != 403 {
			t.Errorf("%v: %d", hdr, res.Code)
		}
		if res := c.CallBody("/login", `{"action":"signIn"}`, sitetest.Header(hdr...)); res.Code != 403 {
			t.Errorf("call with %v: %d", hdr, res.Code)
		}
	}
	if signedIn != 0 {
		t.Fatalf("signed in %d times from another site", signedIn)
	}
	if res := c.PostForm("/login", url.Values{"_action": {"signIn"}}, sitetest.Header("Sec-Fetch-Site", "same-origin")); res.Code != 303 || signedIn != 1 {
		t.Errorf("the site's own form: %d", res.Code)
	}
	if res := c.CallBody("/login", `{"action":"signIn"}`, sitetest.Header("Origin", "https://evil.example", "Authorization", "Bearer agent-a")); res.Code != 200 {
		t.Errorf("a bearer call is exempt: %d", res.Code)
	}
}

// An action's redirect must be a path of this site on every door, checked
// after cleaning, as a browser would read it.
func TestRedirect_OnlyLocalPaths(t *testing.T) {
	bad := []string{"//evil.example", "/\\evil.example", "/./\\evil.example", "/\t/evil.example", "/\n/evil.example",
		"https://evil.example/", "/.//evil.example/..", "/a\\b", "evil.example"}
	for _, to := range bad {
		s := site.New(site.Options{Auth: approvalAuth, Logger: slog.New(slog.DiscardHandler), AuditLogger: slog.New(slog.DiscardHandler)})
		p := s.Page("/p", site.PageOptions{View: shopView})
		site.Handle(p, site.Action{Name: "go", Expose: protocol.ExposePublic}, func(r *site.Request, in struct{}) (site.Done, error) {
			return site.Done{Redirect: to}, nil
		})
		c := sitetest.New(t, s)
		res := c.PostForm("/p", url.Values{"_action": {"go"}})
		if loc := res.Header().Get("Location"); res.Code != 303 || loc != "/p" {
			t.Errorf("form redirect to %q: %d Location %q", to, res.Code, loc)
		}
		if d := c.CallBody("/p", `{"action":"go"}`).Delta(); !d.OK || d.Redirect != "" {
			t.Errorf("delta redirect to %q: %+v", to, d)
		}
	}
	for _, to := range []string{"/orders/7", "/a/../b?x=1", "/search?q=//x"} {
		s := site.New(site.Options{Logger: slog.New(slog.DiscardHandler), AuditLogger: slog.New(slog.DiscardHandler)})
		p := s.Page("/p", site.PageOptions{View: shopView})
		site.Handle(p, site.Action{Name: "go", Expose: protocol.ExposePublic}, func(r *site.Request, in struct{}) (site.Done, error) {
			return site.Done{Redirect: to}, nil
		})
		c := sitetest.New(t, s)
		if d := c.CallBody("/p", `{"action":"go"}`).Delta(); d.Redirect != to {
			t.Errorf("a local redirect %q was dropped: %+v", to, d)
		}
	}
}

// basisShop places orders of a cart that an agent can change while an
// approved order runs: the handler checks, under the cart's lock, that
// the cart is the one the person approved.
type basisShop struct {
	site   *site.Site
	mu     sync.Mutex
	cart   []string
	orders [][]string
}

type basisInput struct{}

var basisCart = site.NewKey[[]string]("cart")

func (basisInput) Summary(r *site.Request, st *site.State) string {
	return fmt.Sprintf("Order %s.", strings.Join(basisCart.Get(st), ", "))
}
func (basisInput) Basis(r *site.Request, st *site.State) string {
	return strings.Join(basisCart.Get(st), ",")
}

func newBasisShop(t *testing.T, between func(*basisShop)) *basisShop {
	sh := &basisShop{cart: []string{"HOOD-GRE-S"}}
	s := site.New(site.Options{Auth: approvalAuth, Logger: slog.New(slog.DiscardHandler), AuditLogger: slog.New(slog.DiscardHandler)})
	approval.Mount(s, nil)
	p := s.Page("/checkout", site.PageOptions{View: shopView, Load: func(r *site.Request) (*site.State, error) {
		sh.mu.Lock()
		defer sh.mu.Unlock()
		st := &site.State{}
		basisCart.Set(st, append([]string(nil), sh.cart...))
		return st, nil
	}})
	site.Handle(p, site.Action{Name: "placeOrder", Expose: protocol.ExposeConfirm, RequireApproval: true},
		func(r *site.Request, in basisInput) (site.Done, error) {
			between(sh) // what another call does between the check and the run
			sh.mu.Lock()
			defer sh.mu.Unlock()
			if err := r.CheckApproved(strings.Join(sh.cart, ",")); err != nil {
				return site.Done{}, err
			}
			sh.orders = append(sh.orders, sh.cart)
			sh.cart = nil
			return site.Done{Message: "Ordered."}, nil
		})
	sh.site = s
	return sh
}

// What runs is what the person approved: a cart changed between the
// approval's check and the run is refused where the action runs, and the
// person is asked again about the new cart.
func TestApproval_TheActionChecksTheApprovedState(t *testing.T) {
	added := false
	sh := newBasisShop(t, func(sh *basisShop) {
		if !added {
			added = true
			sh.mu.Lock()
			sh.cart = append(sh.cart, "TEE-BLK-M")
			sh.mu.Unlock()
		}
	})
	c := sitetest.New(t, sh.site)
	call := func(approval string) protocol.Delta {
		b, _ := json.Marshal(map[string]any{"action": "placeOrder", "confirm": true, "approval": approval})
		return c.CallBody("/checkout", string(b), sitetest.Header("Authorization", "Bearer agent-a")).Delta()
	}
	d := call("")
	u := d.ApprovalURL
	decide(t, c, u, "alice", "approve")
	d = call(u)
	if d.OK || d.Error.Code != protocol.CodeConfirmRequired || !strings.Contains(d.Error.Message, "TEE-BLK-M") || d.ApprovalURL == "" || d.ApprovalURL == u {
		t.Fatalf("a cart changed after the approval: %+v", d)
	}
	if len(sh.orders) != 0 {
		t.Fatalf("an order of what the person did not approve: %v", sh.orders)
	}
	decide(t, c, d.ApprovalURL, "alice", "approve")
	if d := call(d.ApprovalURL); !d.OK || len(sh.orders) != 1 || len(sh.orders[0]) != 2 {
		t.Fatalf("the approval of the new cart: %+v %v", d, sh.orders)
	}
}

// The person's own confirmation page carries the basis too: a cart an
// agent changed while the person read the page is not ordered.
func TestConfirmPage_CarriesTheBasis(t *testing.T) {
	sh := newBasisShop(t, func(*basisShop) {})
	c := sitetest.New(t, sh.site)
	res := c.PostForm("/checkout", url.Values{"_action": {"placeOrder"}}, sitetest.Header("Cookie", "session=alice"))
	if res.Code != 428 || !strings.Contains(res.Body.String(), `name="_basis" value="HOOD-GRE-S"`) {
		t.Fatalf("confirmation page: %d %s", res.Code, res.Body)
	}
	sh.mu.Lock()
	sh.cart = append(sh.cart, "TEE-BLK-M")
	sh.mu.Unlock()
	form := url.Values{"_action": {"placeOrder"}, "_confirm": {"true"}, "_basis": {"HOOD-GRE-S"}}
	res = c.PostForm("/checkout", form, sitetest.Header("Cookie", "session=alice"))
	if res.Code != 428 || len(sh.orders) != 0 || !strings.Contains(res.Body.String(), "TEE-BLK-M") {
		t.Fatalf("a changed cart confirmed on an old page: %d, orders %v", res.Code, sh.orders)
	}
	form.Set("_basis", "HOOD-GRE-S,TEE-BLK-M")
	if res := c.PostForm("/checkout", form, sitetest.Header("Cookie", "session=alice")); res.Code != 303 || len(sh.orders) != 1 {
		t.Fatalf("the page of the new cart: %d, orders %v", res.Code, sh.orders)
	}
}

// Behind trusted proxies the client's address comes from X-Forwarded-For,
// read from the right past the proxies; from anyone else the header is
// ignored.
func TestClientAddr_TrustedProxies(t *testing.T) {
	s := site.New(site.Options{Security: site.SecurityOptions{TrustedProxies: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}}})
	for _, c := range []struct {
		remote, xff, want string
	}{
		{"203.0.113.9:1234", "198.51.100.1", "203.0.113.9"},                  // not a proxy: the header is the client's word
		{"10.0.0.2:1234", "198.51.100.1", "198.51.100.1"},                    // one proxy
		{"10.0.0.2:1234", "6.6.6.6, 198.51.100.1, 10.0.0.3", "198.51.100.1"}, // a forged leftmost hop is skipped
		{"10.0.0.2:1234", "", "10.0.0.2"},                                    // no header
		{"10.0.0.2:1234", "garbage", "10.0.0.2"},                             // not an address
	} {
		r := httptest.NewRequest("GET", "/", nil)
		r.RemoteAddr = c.remote
		if c.xff != "" {
			r.Header.Set("X-Forwarded-For", c.xff)
		}
		if got := s.ClientAddr(r); got != c.want {
			t.Errorf("%s with %q: %s, want %s", c.remote, c.xff, got, c.want)
		}
	}
}

// PageOptions.CacheFor lets a shared cache keep a page's anonymous HTML
// that long, and never a caller's own.
func TestCacheFor_PublicHTMLOnly(t *testing.T) {
	s := site.New(site.Options{Auth: approvalAuth})
	s.Page("/p", site.PageOptions{View: shopView, CacheFor: 5 * time.Second})
	c := sitetest.New(t, s)
	if got := c.Get("/p").Header().Get("Cache-Control"); got != "public, max-age=5" {
		t.Errorf("anonymous: %q", got)
	}
	if got := c.Get("/p", sitetest.Header("Cookie", "session=alice")).Header().Get("Cache-Control"); got != "private, no-store" {
		t.Errorf("signed in: %q", got)
	}
	if got := c.Get("/p", sitetest.Header("Accept", protocol.MediaType)).Header().Get("Cache-Control"); got != "private, no-store" {
		t.Errorf("graph: %q", got)
	}
}
