package site_test

import (
	"html"
	"html/template"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site"
	"github.com/affordances-go/affordances/site/inspector"
	"github.com/affordances-go/affordances/site/sitetest"
	"github.com/affordances-go/affordances/site/webmcp"
)

// keysPage is a site with one people-only action (making a key, as a
// token page does) beside an ordinary one, both recording who acted when
// they run.
type keysPage struct {
	site *site.Site

	mu     sync.Mutex
	made   int
	actors []site.Actor // the actor each run saw, in order
}

func newKeysPage(t *testing.T) *keysPage {
	t.Helper()
	kp := &keysPage{}
	view := template.Must(template.New("keys").Funcs(site.Funcs()).Parse(
		`<html><head>{{affordancesLink}}</head><body>{{with .Error}}<p>{{.Message}}</p>{{end}}{{actionForm . "makeKey"}}{{actionForm . "note"}}</body></html>`))
	kp.site = site.New(site.Options{Auth: testAuth, Logger: slog.New(slog.DiscardHandler)}, webmcp.Extension)
	p := kp.site.Page("/keys", site.PageOptions{Description: "Keys", View: view,
		Load: func(r *site.Request) (*site.State, error) { return &site.State{}, nil }})
	seen := func(r *site.Request) {
		kp.mu.Lock()
		defer kp.mu.Unlock()
		kp.actors = append(kp.actors, r.Actor())
	}
	site.Handle(p, site.Action{Name: "makeKey", Description: "Make a key", Expose: protocol.ExposeSession, PeopleOnly: true},
		func(r *site.Request, in struct {
			Label string `json:"label,omitempty"`
		}) (site.Done, error) {
			seen(r)
			kp.mu.Lock()
			defer kp.mu.Unlock()
			kp.made++
			return site.Done{Message: "Key made."}, nil
		})
	site.Handle(p, site.Action{Name: "note", Description: "Leave a note", Expose: protocol.ExposeSession},
		func(r *site.Request, in struct{}) (site.Done, error) {
			seen(r)
			return site.Done{Message: "Noted."}, nil
		})
	inspector.Mount(kp.site)
	return kp
}

func (kp *keysPage) counts() (int, []site.Actor) {
	kp.mu.Lock()
	defer kp.mu.Unlock()
	return kp.made, append([]site.Actor(nil), kp.actors...)
}

// A people-only action is listed nowhere an agent reads, and every agent
// door refuses it with 403 unauthorized, naming the page; only the
// person's own form, posted as a navigation, runs it.
func TestPeopleOnly_EveryAgentDoorRefusesIt(t *testing.T) {
	kp := newKeysPage(t)
	c := sitetest.New(t, kp.site)
	c.SetCookie("session", "alice")

	g := c.Graph("/keys")
	for _, a := range g.Actions {
		if a.Name == "makeKey" {
			t.Fatalf("a people-only action is in the graph: %+v", a)
		}
	}
	if len(g.Actions) != 1 {
		t.Fatalf("the graph lost the ordinary action: %+v", g.Actions)
	}
	for _, r := range c.Index().Routes {
		for _, a := range r.Actions {
			if a.Name == "makeKey" {
				t.Fatal("a people-only action is in the site index")
			}
		}
	}
	for _, r := range kp.site.AllActions() {
		for _, a := range r.Actions {
			if a.Name == "makeKey" {
				t.Fatal("a people-only action is among the actions doors make tools of")
			}
		}
	}
	html := c.Get("/keys").Body.String()
	if !strings.Contains(html, `data-action="makeKey"`) {
		t.Fatalf("the person's page has no form for the action:\n%s", html)
	}
	if strings.Contains(html, `toolname="makeKey"`) {
		t.Fatal("the people-only form declares a WebMCP tool")
	}
	if !strings.Contains(html, `toolname="note"`) {
		t.Fatal("the ordinary form lost its WebMCP tool")
	}
	i := strings.Index(html, `id="affordances-webmcp">`)
	if i < 0 {
		t.Fatal("no WebMCP tools in the page")
	}
	if tools := html[i : i+strings.Index(html[i:], "</script>")]; strings.Contains(tools, "makeKey") || !strings.Contains(tools, "note") {
		t.Fatalf("the page's WebMCP tools: %s", tools)
	}

	form := url.Values{"_action": {"makeKey"}, "label": {"laptop"}}
	refused := []struct {
		name string
		send func() *sitetest.Response
	}{
		{"json with the cookie", func() *sitetest.Response {
			return c.CallBody("/keys", `{"action":"makeKey","input":{"label":"x"}}`)
		}},
		{"a script's form body (the WebMCP script, an agent in the page)", func() *sitetest.Response {
			return c.PostForm("/keys", form, sitetest.Header("Sec-Fetch-Mode", "cors", "Sec-Fetch-Site", "same-origin"))
		}},
		{"a form with a bearer token", func() *sitetest.Response {
			return c.PostForm("/keys", form, sitetest.Header("Authorization", "Bearer good"))
		}},
		{"json with a bearer token", func() *sitetest.Response {
			return c.CallBody("/keys", `{"action":"makeKey"}`, sitetest.Header("Authorization", "Bearer good"))
		}},
		{"the inspector", func() *sitetest.Response {
			return c.PostForm(inspector.Path, url.Values{"page": {"/keys"}, "action": {"makeKey"}, "input": {`{}`}})
		}},
	}
	for _, tc := range refused {
		res := tc.send()
		body := res.Body.String()
		if res.Code == http.StatusSeeOther || !strings.Contains(body, "only a person can do this") || !strings.Contains(body, "/keys") {
			t.Errorf("%s: %d %s", tc.name, res.Code, body)
		}
		if tc.name != "the inspector" && res.Code != http.StatusForbidden {
			t.Errorf("%s: status %d, want 403", tc.name, res.Code)
		}
	}
	if made, actors := kp.counts(); made != 0 || len(actors) != 0 {
		t.Fatalf("an agent's call ran: made %d, runs %v", made, actors)
	}

	res := c.PostForm("/keys", form, sitetest.Header("Sec-Fetch-Mode", "navigate", "Sec-Fetch-User", "?1", "Sec-Fetch-Site", "same-origin"))
	if made, _ := kp.counts(); res.Code != http.StatusSeeOther || made != 1 {
		t.Fatalf("the person's own form: %d, made %d: %s", res.Code, made, res.Body)
	}
}

// Request.Actor tells the person's own form from an agent on the same
// cookie and from a token, on every door, for guards and actions alike.
func TestActor_OneNameOnEveryDoor(t *testing.T) {
	kp := newKeysPage(t)
	c := sitetest.New(t, kp.site)
	c.SetCookie("session", "alice")
	form := url.Values{"_action": {"note"}}
	c.PostForm("/keys", form, sitetest.Header("Sec-Fetch-Mode", "navigate", "Sec-Fetch-User", "?1"))
	c.PostForm("/keys", form, sitetest.Header("Sec-Fetch-Mode", "same-origin"))
	c.CallBody("/keys", `{"action":"note"}`)
	c.PostForm(inspector.Path, url.Values{"page": {"/keys"}, "action": {"note"}, "input": {`{}`}})
	c.CallBody("/keys", `{"action":"note"}`, sitetest.Header("Authorization", "Bearer good"))
	c.PostForm("/keys", form, sitetest.Header("Authorization", "Bearer good", "Sec-Fetch-Mode", "navigate"))
	_, got := kp.counts()
	want := []site.Actor{site.ActorPerson, site.ActorSessionAgent, site.ActorSessionAgent, site.ActorSessionAgent,
		site.ActorTokenAgent, site.ActorTokenAgent}
	if len(got) != len(want) {
		t.Fatalf("actors %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("actors %v, want %v", got, want)
		}
	}
	if !site.ActorSessionAgent.IsAgent() || !site.ActorTokenAgent.IsAgent() || site.ActorPerson.IsAgent() || site.ActorAnonymous.IsAgent() {
		t.Fatal("IsAgent")
	}
}

// A people-only action must be for a signed-in person.
func TestPeopleOnly_NeedsASession(t *testing.T) {
	s := site.New(site.Options{Auth: testAuth})
	p := s.Page("/x", site.PageOptions{Load: func(r *site.Request) (*site.State, error) { return &site.State{}, nil }})
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "PeopleOnly") {
			t.Fatalf("registered a public people-only action: %v", r)
		}
	}()
	site.Handle(p, site.Action{Name: "x", Expose: protocol.ExposePublic, PeopleOnly: true},
		func(r *site.Request, in struct{}) (site.Done, error) { return site.Done{}, nil })
}

// An agent in the person's page (a script's fetch, with the person's
// cookie and the site's Origin) cannot decide an approval: the decision
// is the person's form, a navigation.
func TestApproval_AScriptCannotDecide(t *testing.T) {
	sh := newApprovalShop(t, time.Minute)
	c := sitetest.New(t, sh.site)
	_, u, _ := ask(t, c, "agent-a", "gift", "")
	res := c.PostForm(u, url.Values{"_decision": {"approve"}},
		sitetest.Header("Cookie", "session=alice", "Sec-Fetch-Mode", "cors", "Sec-Fetch-Site", "same-origin"))
	if res.Code != http.StatusForbidden {
		t.Fatalf("a script's decision: %d %s", res.Code, res.Body)
	}
	if code, _, _ := ask(t, c, "agent-a", "gift", u); code != "confirm_required" || sh.ran() != 0 {
		t.Fatalf("after a script's decision the call: %s, ran %d", code, sh.ran())
	}
	if code := decide(t, c, u, "alice", "approve"); code != http.StatusOK {
		t.Fatalf("the person's own decision: %d", code)
	}
}

// The default approval page lists the whole input beside the summary,
// values as data; another account's person is told the link is not
// theirs, with a way to switch.
func TestApprovalPage_TheWholeInputAndAnotherAccount(t *testing.T) {
	sh := newApprovalShop(t, time.Minute)
	c := sitetest.New(t, sh.site)
	_, u, _ := ask(t, c, "agent-a", "gift \u02bafor bob\u200b", "")
	page := c.Get(u, sitetest.Header("Cookie", "session=alice"))
	body := html.UnescapeString(page.Body.String())
	if page.Code != 200 || !strings.Contains(body, "<dt>Note</dt>") || !strings.Contains(body, "gift ⟨U+02BA⟩for bob⟨U+200B⟩") ||
		!strings.Contains(body, "could press this button") {
		t.Fatalf("the approval page: %d %s", page.Code, body)
	}
	other := c.Get(u, sitetest.Header("Cookie", "session=bob"))
	if b := other.Body.String(); other.Code != http.StatusForbidden || !strings.Contains(b, "another account") ||
		!strings.Contains(b, "/login?next=") || strings.Contains(b, "gift") {
		t.Fatalf("another account: %d %s", other.Code, b)
	}
}

// agentHeader is a test's agent verifier: the agent the request names in
// X-Test-Agent, as if its signature were verified.
type agentHeader struct{}

func (agentHeader) VerifyAgent(r *http.Request) (string, error) {
	return r.Header.Get("X-Test-Agent"), nil
}

// The approval page names the verified agent that signed the call; the
// confirmation page of a person's own form lists the whole input too.
func TestApprovalPage_TheVerifiedAgentAndTheConfirmationPage(t *testing.T) {
	sh := newApprovalShopWith(t, site.Options{Agents: agentHeader{}}, time.Minute)
	c := sitetest.New(t, sh.site)
	res := c.CallBody("/checkout", `{"action":"placeOrder","confirm":true,"input":{"note":"gift"}}`,
		sitetest.Header("Authorization", "Bearer agent-a", "X-Test-Agent", "shopper.example"))
	u := res.Delta().ApprovalURL
	page := html.UnescapeString(c.Get(u, sitetest.Header("Cookie", "session=alice")).Body.String())
	if !strings.Contains(page, "signed as shopper.example (verified)") {
		t.Errorf("the approval page does not name the verified agent:\n%s", page)
	}
	confirm := c.PostForm("/checkout", url.Values{"_action": {"placeOrder"}, "note": {"for \u02babob"}}, sitetest.Header("Cookie", "session=alice"))
	body := html.UnescapeString(confirm.Body.String())
	if confirm.Code != http.StatusPreconditionRequired || !strings.Contains(body, "<dt>Note</dt><dd>for ⟨U+02BA⟩bob</dd>") {
		t.Errorf("the confirmation page: %d\n%s", confirm.Code, body)
	}
}
