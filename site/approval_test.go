package site_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site"
	"github.com/affordances-go/affordances/site/approval"
	"github.com/affordances-go/affordances/site/sitetest"
)

// approvalShop has one action with approval: placeOrder, whose summary
// counts the cart, so that a change of the cart changes what is approved.
type approvalShop struct {
	site   *site.Site
	mu     sync.Mutex
	items  int
	orders int
}

type noteInput struct {
	Note string `json:"note,omitempty"`
}

func (noteInput) Summary(r *site.Request, st *site.State) string {
	return fmt.Sprintf("Place an order for %d items.", cartKey.Get(st).Count)
}

// Alice acts through the token "agent-a" and signs in with the cookie
// session=alice; Bob likewise with "agent-b" and session=bob.
var approvalAuth = site.AuthFunc(func(r *http.Request) (site.Caller, error) {
	if tok, ok := site.BearerToken(r); ok {
		switch tok {
		case "agent-a":
			return site.Caller{ID: "tok-a", Account: "alice", Mode: protocol.AuthBearer, SignedIn: true}, nil
		case "agent-a2":
			return site.Caller{ID: "tok-a2", Account: "alice", Mode: protocol.AuthBearer, SignedIn: true}, nil
		case "agent-b":
			return site.Caller{ID: "tok-b", Account: "bob", Mode: protocol.AuthBearer, SignedIn: true}, nil
		}
		return site.Caller{}, site.ErrBadToken
	}
	if c, err := r.Cookie("session"); err == nil {
		return site.Caller{ID: "sess-" + c.Value, Account: c.Value, Mode: protocol.AuthCookie, SignedIn: true}, nil
	}
	return site.Caller{}, nil
})

func newApprovalShop(t *testing.T, ttl time.Duration) *approvalShop {
	return newApprovalShopWith(t, site.Options{}, ttl)
}

// newApprovalShopWith is newApprovalShop with more options.
func newApprovalShopWith(t *testing.T, o site.Options, ttl time.Duration) *approvalShop {
	sh := &approvalShop{items: 2}
	o.Auth = approvalAuth
	o.Logger, o.AuditLogger = slog.New(slog.DiscardHandler), slog.New(slog.DiscardHandler)
	s := site.New(o)
	approval.Mount(s, &approval.Options{TTL: ttl, SignInURL: "/login", Logger: o.Logger})
	p := s.Page("/checkout", site.PageOptions{View: shopView, Load: func(r *site.Request) (*site.State, error) {
		sh.mu.Lock()
		defer sh.mu.Unlock()
		st := &site.State{}
		cartKey.Set(st, cartView{Count: sh.items})
		stockKey.Set(st, map[string]any{"stock": 1})
		return st, nil
	}})
	site.Handle(p, site.Action{Name: "placeOrder", Description: "Order the cart", Expose: protocol.ExposeConfirm, RequireApproval: true},
		func(r *site.Request, in noteInput) (site.Done, error) {
			sh.mu.Lock()
			defer sh.mu.Unlock()
			sh.orders++
			return site.Done{Message: "Order placed."}, nil
		})
	sh.site = s
	return sh
}

func (sh *approvalShop) ran() int { sh.mu.Lock(); defer sh.mu.Unlock(); return sh.orders }

// ask calls placeOrder as an agent with confirm and an approval, and
// returns the delta's code and approval URL.
func ask(t *testing.T, c *sitetest.Client, token, note, approval string) (string, string, string) {
	t.Helper()
	body := map[string]any{"action": "placeOrder", "confirm": true, "input": map[string]any{"note": note}}
	if approval != "" {
		body["approval"] = approval
	}
	b, _ := json.Marshal(body)
	res := c.CallBody("/checkout", string(b), sitetest.Header("Authorization", "Bearer "+token))
	d := res.Delta()
	if d.OK {
		return "ok", "", d.Message
	}
	return string(d.Error.Code), d.ApprovalURL, d.Error.Message
}

// decide posts the person's decision on the approval page.
func decide(t *testing.T, c *sitetest.Client, u, person, decision string) int {
	t.Helper()
	return c.PostForm(u, url.Values{"_decision": {decision}}, sitetest.Header("Cookie", "session="+person)).Code
}

func TestApproval_TheHappyPath(t *testing.T) {
	sh := newApprovalShop(t, time.Minute)
	c := sitetest.New(t, sh.site)
	g := c.Graph("/checkout", sitetest.Header("Authorization", "Bearer agent-a"))
	if a := g.Action("placeOrder"); a == nil || !a.Approval {
		t.Fatalf("the descriptor does not say approval: %+v", a)
	}
	code, u, msg := ask(t, c, "agent-a", "gift", "")
	if code != "confirm_required" || !strings.HasPrefix(u, "/approvals/") || !strings.Contains(msg, "Place an order for 2 items.") || sh.ran() != 0 {
		t.Fatalf("first call: %s %q %q, ran %d", code, u, msg, sh.ran())
	}
	if len(strings.TrimPrefix(u, "/approvals/")) < 32 {
		t.Errorf("an approval id of less than 192 bits: %s", u)
	}
	// The person sees the summary, signed in, and approves.
	page := c.Get(u, sitetest.Header("Cookie", "session=alice"))
	if page.Code != 200 || !strings.Contains(page.Body.String(), "Place an order for 2 items.") || !strings.Contains(page.Body.String(), `value="approve"`) {
		t.Fatalf("approval page: %d %s", page.Code, page.Body)
	}
	if code := decide(t, c, u, "alice", "approve"); code != 200 {
		t.Fatalf("approve: %d", code)
	}
	status := c.Get(u, sitetest.Header("Authorization", "Bearer agent-a", "Accept", "application/json"))
	if !strings.Contains(status.Body.String(), `"state":"approved"`) {
		t.Errorf("status for the agent: %s", status.Body)
	}
	// A door that waits for the decision (MCP) reads it by the page's URL.
	as := func(token string) *http.Request {
		r := httptest.NewRequest("GET", "/mcp", nil)
		r.Header.Set("Authorization", "Bearer "+token)
		return r
	}
	if st, err := approval.Status(sh.site, as("agent-a"), "https://shop.example"+u+"/"); st != "approved" || err != nil {
		t.Errorf("ApprovalStatus for the agent that asked: %q %v", st, err)
	}
	for _, other := range []string{"agent-a2", "agent-b"} { // another credential of the account; another account
		if st, err := approval.Status(sh.site, as(other), u); !errors.Is(err, approval.ErrNotFound) {
			t.Errorf("ApprovalStatus for %s: %q %v", other, st, err)
		}
	}
	if code, _, _ := ask(t, c, "agent-a", "gift", u); code != "ok" || sh.ran() != 1 {
		t.Fatalf("the approved call: %s, ran %d", code, sh.ran())
	}
	// Once.
	code, u2, msg := ask(t, c, "agent-a", "gift", u)
	if code != "confirm_required" || u2 == u || !strings.Contains(msg, "used already") || sh.ran() != 1 {
		t.Errorf("a used approval: %s %q, ran %d", code, msg, sh.ran())
	}
}

func TestApproval_EveryRefusalRunsNothing(t *testing.T) {
	approved := func(sh *approvalShop, c *sitetest.Client, note string) string {
		_, u, _ := ask(t, c, "agent-a", note, "")
		decide(t, c, u, "alice", "approve")
		return u
	}
	cases := []struct {
		name  string
		ttl   time.Duration
		setup func(sh *approvalShop, c *sitetest.Client) (token, note, approval string)
		want  string // in the message
	}{
		{"no approval", time.Minute, func(sh *approvalShop, c *sitetest.Client) (string, string, string) {
			return "agent-a", "gift", ""
		}, "Place an order for 2 items."},
		{"not approved yet", time.Minute, func(sh *approvalShop, c *sitetest.Client) (string, string, string) {
			_, u, _ := ask(t, c, "agent-a", "gift", "")
			return "agent-a", "gift", u
		}, "Waiting"},
		{"declined", time.Minute, func(sh *approvalShop, c *sitetest.Client) (string, string, string) {
			_, u, _ := ask(t, c, "agent-a", "gift", "")
			decide(t, c, u, "alice", "decline")
			return "agent-a", "gift", u
		}, "declined"},
		{"expired", 30 * time.Millisecond, func(sh *approvalShop, c *sitetest.Client) (string, string, string) {
			u := approved(sh, c, "gift")
			time.Sleep(60 * time.Millisecond)
			return "agent-a", "gift", u
		}, "expired"},
		{"another person's", time.Minute, func(sh *approvalShop, c *sitetest.Client) (string, string, string) {
			return "agent-b", "gift", approved(sh, c, "gift")
		}, "another person"},
		{"another input", time.Minute, func(sh *approvalShop, c *sitetest.Client) (string, string, string) {
			return "agent-a", "other", approved(sh, c, "gift")
		}, "input differs"},
		{"the summary changed", time.Minute, func(sh *approvalShop, c *sitetest.Client) (string, string, string) {
			u := approved(sh, c, "gift")
			sh.mu.Lock()
			sh.items = 3
			sh.mu.Unlock()
			return "agent-a", "gift", u
		}, "changed"},
		{"made up", time.Minute, func(sh *approvalShop, c *sitetest.Client) (string, string, string) {
			return "agent-a", "gift", "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
		}, "no such approval"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sh := newApprovalShop(t, tc.ttl)
			c := sitetest.New(t, sh.site)
			token, note, approval := tc.setup(sh, c)
			code, u, msg := ask(t, c, token, note, approval)
			if code != "confirm_required" || !strings.Contains(msg, tc.want) || u == "" {
				t.Errorf("%s %q %q", code, msg, u)
			}
			if sh.ran() != 0 {
				t.Errorf("it ran")
			}
		})
	}
}

// The approval page: for the person it was asked of, signed in; decided
// only by them, in a browser.
func TestApproval_ThePageIsThePersons(t *testing.T) {
	sh := newApprovalShop(t, time.Minute)
	c := sitetest.New(t, sh.site)
	_, u, _ := ask(t, c, "agent-a", "gift", "")
	if res := c.Get(u); res.Code != 401 || !strings.Contains(res.Body.String(), `href="/login?next=%2Fapprovals%2F`) {
		t.Errorf("not signed in: %d", res.Code)
	}
	if res := c.Get(u, sitetest.Header("Cookie", "session=bob")); res.Code != 403 || strings.Contains(res.Body.String(), "gift") {
		t.Errorf("another person: %d", res.Code)
	}
	if res := c.PostForm(u, url.Values{"_decision": {"approve"}}, sitetest.Header("Cookie", "session=bob")); res.Code != 403 {
		t.Errorf("another person deciding: %d", res.Code)
	}
	if res := c.PostForm(u, url.Values{"_decision": {"approve"}}, sitetest.Header("Authorization", "Bearer agent-a")); res.Code != 403 {
		t.Errorf("an agent approving its own call: %d", res.Code)
	}
	if res := c.PostForm(u, url.Values{"_decision": {"approve"}}, sitetest.Header("Cookie", "session=alice", "Origin", "http://evil.example")); res.Code != 403 {
		t.Errorf("approval from another site: %d", res.Code)
	}
	if code, _, _ := ask(t, c, "agent-a", "gift", u); code != "confirm_required" || sh.ran() != 0 {
		t.Errorf("after refused decisions: %s, ran %d", code, sh.ran())
	}
}

// A person's own form keeps the one-step confirmation page.
func TestApproval_FormsKeepTheirConfirmationPage(t *testing.T) {
	sh := newApprovalShop(t, time.Minute)
	c := sitetest.New(t, sh.site)
	if res := c.PostForm("/checkout", url.Values{"_action": {"placeOrder"}}, sitetest.Header("Cookie", "session=alice")); res.Code != 428 || sh.ran() != 0 {
		t.Fatalf("form without confirmation: %d", res.Code)
	}
	if res := c.PostForm("/checkout", url.Values{"_action": {"placeOrder"}, "_confirm": {"true"}}, sitetest.Header("Cookie", "session=alice")); res.Code != 303 || sh.ran() != 1 {
		t.Fatalf("confirmed form: %d, ran %d", res.Code, sh.ran())
	}
}

// Options.RequireApproval gives every confirm action approval, and only
// confirm actions; RequireApproval on another action is a registration
// error.
func TestApproval_SiteWideDefault(t *testing.T) {
	s := site.New(site.Options{Auth: approvalAuth, RequireApproval: true})
	p := s.Page("/", site.PageOptions{})
	done := func(*site.Request, struct{}) (site.Done, error) { return site.Done{}, nil }
	site.Handle(p, site.Action{Name: "order", Expose: protocol.ExposeConfirm}, done)
	site.Handle(p, site.Action{Name: "look", Expose: protocol.ExposeSession}, done)
	idx := sitetest.New(t, s).Index()
	for _, a := range idx.Routes[0].Actions {
		if a.Approval != (a.Name == "order") {
			t.Errorf("%s: approval %v", a.Name, a.Approval)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("RequireApproval on a session action was registered")
		}
	}()
	site.Handle(s.Page("/x", site.PageOptions{}), site.Action{Name: "bad", Expose: protocol.ExposeSession, RequireApproval: true}, done)
}

// An unconfirmed call repeated before the person decided shows the same
// approval page, with what to send back named; another input, or another
// credential, gets its own.
func TestApproval_ARepeatReusesThePendingOne(t *testing.T) {
	sh := newApprovalShop(t, time.Minute)
	c := sitetest.New(t, sh.site)
	_, first, _ := ask(t, c, "agent-a", "gift", "")
	_, again, _ := ask(t, c, "agent-a", "gift", "")
	if first == "" || again != first {
		t.Errorf("asked twice: %q then %q", first, again)
	}
	if _, other, _ := ask(t, c, "agent-a", "another note", ""); other == first {
		t.Error("another input reused the approval")
	}
	if _, other, _ := ask(t, c, "agent-b", "gift", ""); other == first {
		t.Error("another credential reused the approval")
	}
	res := c.CallBody("/checkout", `{"action":"placeOrder","confirm":true,"input":{"note":"gift"}}`, sitetest.Header("Authorization", "Bearer agent-a"))
	d := res.Delta()
	if d.RepeatWith == nil || !d.RepeatWith.Confirm || d.RepeatWith.Approval == "" || !strings.HasSuffix(d.ApprovalURL, "/"+d.RepeatWith.Approval) {
		t.Errorf("repeatWith: %+v (approvalUrl %s)", d.RepeatWith, d.ApprovalURL)
	}
}

// The library's own approval page, for a site that gives none: what is
// asked in words, by which agent, until when, and two answers.
func TestApproval_TheDefaultPage(t *testing.T) {
	sh := newApprovalShop(t, 10*time.Minute)
	c := sitetest.New(t, sh.site)
	_, u, _ := ask(t, c, "agent-a", "gift", "")
	res := c.Get(u, sitetest.Header("Cookie", "session=alice"))
	body := res.Body.String()
	for _, want := range []string{"<h1>Place order?</h1>", "Asked by an agent, acting for you", "expires in 10 minutes",
		`value="approve" class="approve">Approve</button>`, `value="decline" class="decline" data-no-presence>Decline</button>`, `name="viewport"`} {
		if !strings.Contains(body, want) {
			t.Errorf("the default approval page lacks %q:\n%s", want, body)
		}
	}
}

// An action with approval on a site with no Approvals mounted never runs
// for an agent: the call fails with internal, and the log says what is
// missing. A person in their own session still acts for themselves.
func TestApproval_WithoutApprovalsNothingRuns(t *testing.T) {
	var logs strings.Builder
	s := site.New(site.Options{Auth: approvalAuth, Logger: slog.New(slog.NewTextHandler(&logs, nil)), AuditLogger: slog.New(slog.DiscardHandler)})
	ran := 0
	site.Handle(s.Page("/checkout", site.PageOptions{}),
		site.Action{Name: "placeOrder", Expose: protocol.ExposeConfirm, RequireApproval: true},
		func(r *site.Request, _ struct{}) (site.Done, error) {
			ran++
			return site.Done{Message: "Order placed."}, nil
		})
	c := sitetest.New(t, s)
	res := c.CallBody("/checkout", `{"action":"placeOrder","confirm":true}`, sitetest.Header("Authorization", "Bearer agent-a"))
	if d := res.Delta(); res.Code != 500 || d.Error == nil || d.Error.Code != protocol.CodeInternal || ran != 0 {
		t.Fatalf("an agent's call without Approvals: %d %s, ran %d", res.Code, res.Body, ran)
	}
	if !strings.Contains(logs.String(), "the action needs the person's approval, and the site has no Approvals") {
		t.Errorf("the log does not say what is missing:\n%s", logs.String())
	}
	if st, err := approval.Status(s, httptest.NewRequest("GET", "/", nil), "/approvals/x"); !errors.Is(err, approval.ErrNotFound) {
		t.Errorf("ApprovalStatus without Approvals: %q %v", st, err)
	}
}
