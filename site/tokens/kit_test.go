package tokens_test

import (
	"context"
	"encoding/base64"
	"errors"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site"
	"github.com/affordances-go/affordances/site/sitetest"
	"github.com/affordances-go/affordances/site/tokens"
)

// app is a small site with the kit: a session cookie "session" whose
// value is the account, a notes page with two actions, and the tokens
// page the kit mounts.
type app struct {
	site  *site.Site
	kit   *tokens.Kit
	store *countingStore
	clock *clock
	mu    sync.Mutex
	notes []string
}

type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time      { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *clock) add(d time.Duration) { c.mu.Lock(); c.now = c.now.Add(d); c.mu.Unlock() }

// countingStore counts the writes of last use.
type countingStore struct {
	*tokens.Memory
	mu   sync.Mutex
	used int
}

func (s *countingStore) Used(ctx context.Context, id int64, agent string, at time.Time) error {
	s.mu.Lock()
	s.used++
	s.mu.Unlock()
	return s.Memory.Used(ctx, id, agent, at)
}

type note struct {
	Text string `json:"text" maxLength:"100"`
}

func newApp(t *testing.T) *app {
	a := &app{store: &countingStore{Memory: tokens.NewMemory()}, clock: &clock{now: time.Date(2026, 12, 6, 10, 0, 0, 0, time.UTC)}}
	a.kit = tokens.New(a.store, tokens.Options{
		Actions:  []tokens.Choice{{Action: "addNote", Words: "add notes"}, {Action: "clearNotes", Words: "clear your notes"}},
		Standing: &tokens.StandingOffer{Action: "addNote", Unit: "EUR", Scale: 100, MaxPerCall: 50, MaxPerDay: 200},
		Now:      a.clock.Now,
	})
	a.site = site.New(site.Options{Name: "Notes", Auth: site.AuthFunc(func(r *http.Request) (site.Caller, error) {
		if c, ok, err := a.kit.Caller(r); ok {
			return c, err
		}
		if ck, err := r.Cookie("session"); err == nil {
			return site.Caller{ID: "sess:" + ck.Value, Account: ck.Value, Mode: protocol.AuthCookie, SignedIn: true}, nil
		}
		return site.Caller{}, nil
	})})
	p := a.site.Page("/notes", site.PageOptions{Description: "Notes", Load: func(r *site.Request) (*site.State, error) { return &site.State{}, nil }})
	site.Handle(p, site.Action{Name: "addNote", Expose: protocol.ExposeSession}, func(r *site.Request, in note) (site.Done, error) {
		a.mu.Lock()
		defer a.mu.Unlock()
		a.notes = append(a.notes, r.Caller.Account+": "+in.Text)
		return site.Done{Message: "Added."}, nil
	})
	site.Handle(p, site.Action{Name: "clearNotes", Expose: protocol.ExposeSession}, func(r *site.Request, in struct{}) (site.Done, error) {
		return site.Done{Message: "Cleared."}, nil
	})
	a.kit.Mount(a.site, "/account/tokens", tokens.MountOptions{})
	return a
}

var secretRE = regexp.MustCompile(`afk_[A-Za-z0-9_-]{43}`)

// person is Alice in her browser: her session cookie, her own forms
// posted as navigations.
func person(t *testing.T, a *app) *sitetest.Client {
	c := sitetest.New(t, a.site)
	c.SetCookie("session", "user:alice")
	return c
}

var navigate = sitetest.Header("Sec-Fetch-Mode", "navigate", "Sec-Fetch-User", "?1", "Sec-Fetch-Site", "same-origin")

// makeToken makes a token on the page, as the person, and returns the
// secret the page shows once.
func makeToken(t *testing.T, c *sitetest.Client, form url.Values) string {
	t.Helper()
	form.Set("_action", "createToken")
	res := c.PostForm("/account/tokens", form, navigate)
	if res.Code != http.StatusSeeOther {
		t.Fatalf("createToken: %d %s", res.Code, res.Body)
	}
	page := c.Get("/account/tokens").Body.String()
	secret := secretRE.FindString(page)
	if secret == "" {
		t.Fatalf("the page after createToken shows no token:\n%s", page)
	}
	if again := c.Get("/account/tokens").Body.String(); secretRE.MatchString(again) {
		t.Fatal("the token is shown a second time")
	}
	return secret
}

// The person makes a token on the kit's page and sees it once; an agent
// with it acts for her, within its scopes, until she revokes it.
func TestKit_ThePersonMakesAndRevokesATokenThatAnAgentUses(t *testing.T) {
	a := newApp(t)
	alice := person(t, a)
	if page := alice.Get("/account/tokens").Body.String(); !strings.Contains(page, "No tokens yet") || !strings.Contains(page, `data-action="createToken"`) {
		t.Fatalf("the empty page:\n%s", page)
	}
	secret := makeToken(t, alice, url.Values{"label": {"laptop"}})
	stored, _ := a.store.List(context.Background(), "user:alice")
	if len(stored) != 1 || strings.Contains(stored[0].Label, secret) {
		t.Fatalf("stored: %+v", stored)
	}

	agent := sitetest.New(t, a.site)
	agent.Bearer = secret
	if res := agent.Call("/notes", "addNote", map[string]any{"text": "from the agent"}); res.Code != 200 {
		t.Fatalf("the agent's call with the token: %d %s", res.Code, res.Body)
	}
	if a.notes[0] != "user:alice: from the agent" {
		t.Fatalf("the call ran as %q, not for Alice", a.notes[0])
	}
	page := alice.Get("/account/tokens").Body.String()
	if !strings.Contains(page, "laptop") || !strings.Contains(page, "everything you can do") || strings.Contains(page, "never</td>") {
		t.Fatalf("the page after the agent's call:\n%s", page)
	}

	// Revoked, it stops working at once.
	id := stored[0].ID
	res := alice.PostForm("/account/tokens", url.Values{"_action": {"revokeToken"}, "id": {itoa(id)}, "_confirm": {"true"}}, navigate)
	if res.Code != http.StatusSeeOther {
		t.Fatalf("revokeToken: %d %s", res.Code, res.Body)
	}
	if res := agent.Call("/notes", "addNote", map[string]any{"text": "again"}); res.Code != http.StatusUnauthorized {
		t.Fatalf("a revoked token: %d %s", res.Code, res.Body)
	}
}

// Scopes and the standing approval the person chose are the token's; an
// action outside its scopes is refused.
func TestKit_AGrantLimitsTheToken(t *testing.T) {
	a := newApp(t)
	alice := person(t, a)
	secret := makeToken(t, alice, url.Values{"label": {"notes only"}, "actions": {"addNote"}, "days": {"2"}, "perCall": {"10"}, "perDay": {"30"}})
	tk, err := a.kit.Lookup(context.Background(), secret)
	if err != nil {
		t.Fatal(err)
	}
	want := tokens.Grant{Actions: []string{"addNote"}, Expires: a.clock.Now().Add(48 * time.Hour), Standing: tokens.Standing{PerCall: 1000, PerDay: 3000}}
	if strings.Join(tk.Grant.Actions, ",") != "addNote" || !tk.Grant.Expires.Equal(want.Expires) || tk.Grant.Standing != want.Standing {
		t.Fatalf("grant %+v, want %+v", tk.Grant, want)
	}
	if !tk.Grant.Standing.Covers(1000, 2000) || tk.Grant.Standing.Covers(1001, 0) || tk.Grant.Standing.Covers(500, 2600) {
		t.Fatal("Covers does not hold the standing approval to its amounts")
	}
	page := alice.Get("/account/tokens").Body.String()
	if !strings.Contains(page, "only add notes; add notes up to 10.00 EUR each and 30.00 EUR a day without asking you; until 8 Dec 2026") {
		t.Fatalf("the page does not say what the token may do:\n%s", page)
	}
	agent := sitetest.New(t, a.site)
	agent.Bearer = secret
	if res := agent.Call("/notes", "clearNotes", nil); res.Code != http.StatusForbidden {
		t.Fatalf("an action outside the token's scopes: %d %s", res.Code, res.Body)
	}
	a.clock.add(49 * time.Hour)
	if res := agent.Call("/notes", "addNote", map[string]any{"text": "late"}); res.Code != http.StatusUnauthorized {
		t.Fatalf("an expired token: %d %s", res.Code, res.Body)
	}
}

// A grant the kit does not offer is refused, field by field, and no
// token is made.
func TestKit_RefusesAGrantItDoesNotOffer(t *testing.T) {
	a := newApp(t)
	alice := person(t, a)
	for _, form := range []url.Values{
		{"actions": {"dropTables"}},
		{"perCall": {"60"}, "perDay": {"100"}},
		{"perCall": {"10"}, "perDay": {"5"}},
		{"perDay": {"5"}},
		{"label": {"a\u202etxt"}},
	} {
		form.Set("_action", "createToken")
		if res := alice.PostForm("/account/tokens", form, navigate); res.Code == http.StatusSeeOther {
			t.Errorf("%v was accepted", form)
		}
	}
	if l, _ := a.store.List(context.Background(), "user:alice"); len(l) != 0 {
		t.Fatalf("refused forms made tokens: %+v", l)
	}
}

// No agent makes itself a token: not with a token, not riding the
// person's cookie, and a graph of the page never holds a secret.
func TestKit_NoAgentMakesOrSeesAToken(t *testing.T) {
	a := newApp(t)
	alice := person(t, a)
	secret := makeToken(t, alice, url.Values{"label": {"first"}})
	agent := sitetest.New(t, a.site)
	agent.Bearer = secret
	for _, res := range []*sitetest.Response{
		agent.CallBody("/account/tokens", `{"action":"createToken","input":{"label":"mine"}}`),
		alice.CallBody("/account/tokens", `{"action":"createToken","input":{"label":"mine"}}`),
		alice.PostForm("/account/tokens", url.Values{"_action": {"createToken"}, "label": {"mine"}}, sitetest.Header("Sec-Fetch-Mode", "cors")),
	} {
		if res.Code != http.StatusForbidden {
			t.Errorf("an agent's createToken: %d %s", res.Code, res.Body)
		}
	}
	if l, _ := a.store.List(context.Background(), "user:alice"); len(l) != 1 {
		t.Fatalf("agents made tokens: %+v", l)
	}
	// Alice makes a second one; an agent on her cookie reads the page's
	// graph before she looks: no secret in it.
	alice.PostForm("/account/tokens", url.Values{"_action": {"createToken"}, "label": {"second"}}, navigate)
	g := alice.Graph("/account/tokens")
	if _, ok := g.Entities["newToken"]; ok {
		t.Fatal("the graph holds the new token")
	}
	for _, ac := range g.Actions {
		if ac.Name == "createToken" || ac.Name == "revokeToken" {
			t.Fatalf("the graph lists %s", ac.Name)
		}
	}
	if !secretRE.MatchString(alice.Get("/account/tokens").Body.String()) {
		t.Fatal("the person no longer sees her token after an agent read the graph")
	}
}

// A busy token's last use is one write a minute, not one per request.
func TestKit_LastUseOnceAMinute(t *testing.T) {
	a := newApp(t)
	secret := makeToken(t, person(t, a), url.Values{})
	agent := sitetest.New(t, a.site)
	agent.Bearer = secret
	for range 10 {
		agent.Graph("/notes")
	}
	a.clock.add(time.Minute)
	agent.Graph("/notes")
	if a.store.used != 2 {
		t.Fatalf("11 requests over a minute wrote the last use %d times, want 2", a.store.used)
	}
}

func TestKit_CallerWithoutABearerToken(t *testing.T) {
	a := newApp(t)
	r, _ := http.NewRequest("GET", "/", nil)
	if _, ok, err := a.kit.Caller(r); ok || err != nil {
		t.Fatalf("no token: ok %v, err %v", ok, err)
	}
	r.Header.Set("Authorization", "Bearer afk_nope")
	if _, ok, err := a.kit.Caller(r); !ok || !errors.Is(err, site.ErrBadToken) {
		t.Fatalf("an unknown token: ok %v, err %v", ok, err)
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// The secret goes to the person's navigation alone: a page script's
// fetch of the page after the form (Sec-Fetch-Mode: cors) gets no secret
// and leaves it for the person; a form a script submits without the
// person's gesture (navigate, no Sec-Fetch-User) makes no token.
func TestKit_TheSecretOnlyToThePersonsNavigation(t *testing.T) {
	a := newApp(t)
	alice := person(t, a)
	if res := alice.PostForm("/account/tokens", url.Values{"_action": {"createToken"}, "label": {"script"}},
		sitetest.Header("Sec-Fetch-Mode", "navigate", "Sec-Fetch-Site", "same-origin")); res.Code != http.StatusForbidden {
		t.Errorf("a script's form.submit(): %d", res.Code)
	}
	if stored, _ := a.store.List(context.Background(), "user:alice"); len(stored) != 0 {
		t.Fatalf("a script's submit made a token: %+v", stored)
	}
	if res := alice.PostForm("/account/tokens", url.Values{"_action": {"createToken"}, "label": {"laptop"}}, navigate); res.Code != http.StatusSeeOther {
		t.Fatalf("createToken: %d %s", res.Code, res.Body)
	}
	if page := alice.Get("/account/tokens", sitetest.Header("Sec-Fetch-Mode", "cors", "Sec-Fetch-Site", "same-origin")).Body.String(); secretRE.MatchString(page) {
		t.Fatalf("a script's fetch got the secret:\n%s", page)
	}
	if page := alice.Get("/account/tokens", sitetest.Header("Sec-Fetch-Mode", "navigate", "Sec-Fetch-Site", "same-origin")).Body.String(); !secretRE.MatchString(page) {
		t.Errorf("the person's page shows no secret after a script's fetch:\n%s", page)
	}
}

// A refused form says why on the page, and keeps what the person typed.
func TestKit_ARefusedFormSaysWhy(t *testing.T) {
	a := newApp(t)
	alice := person(t, a)
	long := strings.Repeat("x", 41)
	res := alice.PostForm("/account/tokens", url.Values{"_action": {"createToken"}, "label": {long}}, navigate)
	body := res.Body.String()
	if res.Code != 400 || !strings.Contains(body, `role="alert"`) || !strings.Contains(body, "40") || !strings.Contains(body, `value="`+long+`"`) {
		t.Errorf("a label over 40 characters: %d\n%s", res.Code, body)
	}
}

// The cookie that carries a new secret to the next page holds it sealed:
// whoever reads the browser's cookies finds no token there.
func TestKit_TheRevealCookieHoldsNoSecret(t *testing.T) {
	a := newApp(t)
	alice := person(t, a)
	res := alice.PostForm("/account/tokens", url.Values{"_action": {"createToken"}, "label": {"laptop"}}, navigate)
	var cookie string
	for _, c := range res.Result().Cookies() {
		if c.Name == "afford_new_token" {
			cookie = c.Value
		}
	}
	if res.Code != http.StatusSeeOther || cookie == "" {
		t.Fatalf("createToken: %d, cookie %q", res.Code, cookie)
	}
	if strings.Contains(cookie, tokens.DefaultPrefix) {
		t.Fatalf("the cookie holds the secret in clear: %s", cookie)
	}
	raw, _ := base64.RawURLEncoding.DecodeString(cookie)
	if strings.Contains(string(raw), tokens.DefaultPrefix) {
		t.Fatalf("the cookie holds the secret, base64: %s", cookie)
	}
	page := alice.Get("/account/tokens", navigate).Body.String()
	if !secretRE.MatchString(page) {
		t.Errorf("the person's page does not open it:\n%s", page)
	}
}
