package recipes_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"html"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	_ "github.com/go-sql-driver/mysql"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/affordances-go/affordances/client"
	"github.com/affordances-go/affordances/conformance"
	"github.com/affordances-go/affordances/examples/adopt/recipes"
	"github.com/affordances-go/affordances/internal/servers"
)

// servers of one test: the application as it was, and adopted, over
// HTTPS, on one MariaDB.
type servers2 struct {
	db            *sql.DB
	plain, agents *httptest.Server
}

func start(t *testing.T) servers2 {
	db, err := sql.Open("mysql", servers.StartMariaDB(t).DSN)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	ctx := context.Background()
	if err := recipes.Migrate(ctx, db); err != nil {
		t.Fatal(err)
	}
	quiet := slog.New(slog.DiscardHandler)
	plain := httptest.NewTLSServer(recipes.New(db, quiet).Routes())
	t.Cleanup(plain.Close)
	h, err := recipes.New(db, quiet).WithAgents(ctx)
	if err != nil {
		t.Fatal(err)
	}
	agents := httptest.NewTLSServer(h)
	t.Cleanup(agents.Close)
	return servers2{db: db, plain: plain, agents: agents}
}

// browser is a person's browser: cookies, no redirects followed, every
// form posted as a navigation of the site's own page.
type browser struct {
	t    *testing.T
	srv  *httptest.Server
	http *http.Client
}

func newBrowser(t *testing.T, srv *httptest.Server) *browser {
	jar, _ := cookiejar.New(nil)
	hc := fresh(srv)
	hc.Jar = jar
	hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &browser{t: t, srv: srv, http: hc}
}

// fresh is a client of the test server of its own (Client returns one
// shared client).
func fresh(srv *httptest.Server) *http.Client {
	c := *srv.Client()
	return &c
}

func (b *browser) get(path string) (int, string) {
	res, err := b.http.Get(b.srv.URL + path)
	if err != nil {
		b.t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(body)
}

var csrfField = regexp.MustCompile(`name="csrf_token" value="([^"]+)"`)

// post posts a form of the page at path, with the CSRF token the page
// holds when withToken is set.
func (b *browser) post(page, path string, form url.Values, withToken bool) (int, string, string) {
	if withToken {
		_, body := b.get(page)
		m := csrfField.FindStringSubmatch(body)
		if m == nil {
			b.t.Fatalf("no CSRF token on %s:\n%s", page, body)
		}
		form.Set("csrf_token", html.UnescapeString(m[1]))
	}
	req, _ := http.NewRequest("POST", b.srv.URL+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", b.srv.URL)
	req.Header.Set("Referer", b.srv.URL+page)
	req.Header.Set("Sec-Fetch-Mode", "navigate")
	req.Header.Set("Sec-Fetch-User", "?1")
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	res, err := b.http.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	return res.StatusCode, res.Header.Get("Location"), string(body)
}

// peopleFlows are the application's own flows, CSRF refusals included:
// the same answers with Affordances in front as without.
func peopleFlows(t *testing.T, srv *httptest.Server, name, email string) {
	b := newBrowser(t, srv)
	if code, _, body := b.post("/user/signup", "/user/signup", url.Values{"name": {name}, "email": {email}, "password": {"ann-password"}}, true); code != 303 {
		t.Fatalf("sign up: %d %s", code, body)
	}
	if code, _, _ := b.post("/user/login", "/user/login", url.Values{"email": {email}, "password": {"wrong-password"}}, true); code != 422 {
		t.Fatalf("a wrong password: %d", code)
	}
	if code, _, _ := b.post("/user/login", "/user/login", url.Values{"email": {email}, "password": {"ann-password"}}, false); code != 400 {
		t.Fatalf("a login without the CSRF token: %d, want nosurf's 400", code)
	}
	if code, to, _ := b.post("/user/login", "/user/login", url.Values{"email": {email}, "password": {"ann-password"}}, true); code != 303 || to != "/recipe/create" {
		t.Fatalf("log in: %d %s", code, to)
	}
	if code, _, _ := b.post("/recipe/create", "/recipe/create", url.Values{"title": {"Toast"}, "ingredients": {"bread"}, "method": {"toast it"}}, false); code != 400 {
		t.Fatalf("a recipe without the CSRF token: %d, want 400", code)
	}
	if code, _, body := b.post("/recipe/create", "/recipe/create", url.Values{"title": {""}, "ingredients": {"bread"}, "method": {"toast it"}}, true); code != 422 || !strings.Contains(body, "cannot be blank") {
		t.Fatalf("a recipe without a title: %d", code)
	}
	code, to, _ := b.post("/recipe/create", "/recipe/create", url.Values{"title": {"Toast of " + email}, "ingredients": {"bread"}, "method": {"toast it"}}, true)
	if code != 303 || !strings.HasPrefix(to, "/recipe/view/") {
		t.Fatalf("a recipe: %d %s", code, to)
	}
	if code, body := b.get(to); code != 200 || !strings.Contains(body, "Toast of "+email) || !strings.Contains(body, "Recipe saved.") {
		t.Fatalf("the recipe's page: %d %s", code, body)
	}
	if code, _, _ := b.post("/", "/user/logout", url.Values{}, true); code != 303 {
		t.Fatalf("log out: %d", code)
	}
	if code, to, _ := b.post("/user/login", "/recipe/create", url.Values{}, true); code != 303 || to != "/user/login" {
		t.Fatalf("after logging out: %d %s", code, to)
	}
}

// The adoption changes nothing for people, and agents sign in, write a
// recipe and read it back through the client, with a token the person
// made, and through MCP; the conformance checker passes.
func TestRecipes_AdoptedAsTheDocsSay(t *testing.T) {
	s := start(t)
	ctx := context.Background()
	t.Run("people, as before", func(t *testing.T) { peopleFlows(t, s.plain, "Ann", "ann@example.com") })
	t.Run("people, with agents", func(t *testing.T) { peopleFlows(t, s.agents, "Bea", "bea@example.com") })

	// The app writes its status before its body: the Link is there.
	res, err := fresh(s.agents).Get(s.agents.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if !strings.Contains(res.Header.Get("Link"), `rel="affordances"`) {
		t.Fatalf("the home page has no Link to its graph: %v", res.Header)
	}

	// An agent with the person's password, on cookies.
	agent := client.New(client.Options{HTTPClient: newBrowser(t, s.agents).http, FollowRedirects: true})
	if _, err := agent.Call(ctx, s.agents.URL+"/user/login", "signIn", map[string]any{"email": "bea@example.com", "password": "ann-password"}); err != nil {
		t.Fatalf("signIn: %v", err)
	}
	r, err := agent.Call(ctx, s.agents.URL+"/recipe/create", "createRecipe",
		map[string]any{"title": "Soup", "ingredients": "water\nstones", "method": "boil"})
	if err != nil {
		t.Fatalf("createRecipe: %v", err)
	}
	var read recipes.Recipe
	if r.Next != nil {
		b, _ := json.Marshal(r.Next.Entities["recipe"])
		json.Unmarshal(b, &read)
	}
	if read.Title != "Soup" || read.Author != "Bea" {
		t.Fatalf("the recipe read back: %+v", r.Next)
	}

	// The person makes a token on the kit's page; the form keeps the
	// app's CSRF check.
	bea := newBrowser(t, s.agents)
	bea.post("/user/login", "/user/login", url.Values{"email": {"bea@example.com"}, "password": {"ann-password"}}, true)
	if code, _, _ := bea.post("/account/tokens", "/account/tokens", url.Values{"_action": {"createToken"}, "label": {"forged"}}, false); code != 400 {
		t.Fatalf("createToken without the CSRF token: %d, want nosurf's 400", code)
	}
	if code, _, body := bea.post("/account/tokens", "/account/tokens", url.Values{"_action": {"createToken"}, "label": {"mcp host"}}, true); code != 303 {
		t.Fatalf("createToken: %d %s", code, body)
	}
	_, page := bea.get("/account/tokens")
	token := regexp.MustCompile(`afk_[A-Za-z0-9_-]{43}`).FindString(page)
	if token == "" {
		t.Fatalf("no token on the page:\n%s", page)
	}

	// An MCP host with the token.
	hc := fresh(s.agents)
	hc.Transport = bearer{token, hc.Transport}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "host", Version: "0"}, nil).Connect(ctx,
		&sdk.StreamableClientTransport{Endpoint: s.agents.URL + "/mcp", HTTPClient: hc}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	name := ""
	for _, tl := range tools.Tools {
		if strings.Contains(tl.Name, "createRecipe") {
			name = tl.Name
		}
	}
	out, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: map[string]any{"title": "Bread", "ingredients": "flour", "method": "bake"}})
	if err != nil || out.IsError {
		t.Fatalf("createRecipe over MCP (%q): %v %+v", name, err, out)
	}
	var n int
	s.db.QueryRow(`SELECT count(*) FROM recipes r JOIN users u ON u.id = r.user_id WHERE r.title = 'Bread' AND u.email = 'bea@example.com'`).Scan(&n)
	if n != 1 {
		t.Fatalf("the recipe written over MCP: %d rows", n)
	}

	// The checker, strict, with the token.
	rep, err := conformance.Run(ctx, conformance.Config{BaseURL: s.agents.URL, Token: token, HTTPClient: fresh(s.agents),
		Safe: &conformance.Action{Page: "/recipe/create", Name: "createRecipe", Input: json.RawMessage(`{"title":"Check","ingredients":"x","method":"y"}`)}})
	if err != nil {
		t.Fatal(err)
	}
	for _, res := range rep.Results {
		if res.Status == conformance.Fail { // strict: should rules too
			t.Errorf("%s %s: %s", res.ID, res.Status, res.Detail)
		}
	}
}

type bearer struct {
	token string
	base  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.base.RoundTrip(r)
}
