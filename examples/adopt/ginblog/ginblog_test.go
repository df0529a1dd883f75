package ginblog

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/gin-gonic/gin"

	"github.com/affordances-go/affordances/conformance"
	"github.com/affordances-go/affordances/internal/syncbuf"
	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site"
	"github.com/affordances-go/affordances/site/tokens"
)

// blog starts the adopted blog on a loopback server; logs is what gin's
// Logger wrote.
type blog struct {
	app  *App
	kit  *tokens.Kit
	srv  *httptest.Server
	logs *syncbuf.Buffer
}

func start(t *testing.T) *blog {
	gin.SetMode(gin.TestMode)
	logs := &syncbuf.Buffer{}
	gin.DefaultWriter = logs
	app, err := Open("file:"+t.TempDir()+"/blog.db", []byte("0123456789abcdef0123456789abcdef"))
	if err != nil {
		t.Fatal(err)
	}
	engine, kit, err := app.WithAgents(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(engine)
	t.Cleanup(srv.Close)
	return &blog{app: app, kit: kit, srv: srv, logs: logs}
}

// client is a browser-like client with a cookie jar.
func (b *blog) client() *http.Client {
	jar, _ := cookiejar.New(nil)
	return &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

func send(t *testing.T, c *http.Client, method, u, body string, header ...string) (int, string, http.Header) {
	t.Helper()
	r, _ := http.NewRequest(method, u, strings.NewReader(body))
	for i := 0; i+1 < len(header); i += 2 {
		r.Header.Set(header[i], header[i+1])
	}
	res, err := c.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	out, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(out), res.Header
}

// call is an agent's JSON call with the cookie jar (and the site's Origin).
func (b *blog) call(t *testing.T, c *http.Client, path, action string, input any) (int, protocol.Delta) {
	t.Helper()
	body, _ := json.Marshal(protocol.Call{Action: action, Input: mustJSON(input)})
	code, out, _ := send(t, c, "POST", b.srv.URL+path, string(body), "Content-Type", protocol.MediaType, "Origin", b.srv.URL)
	var d protocol.Delta
	json.Unmarshal([]byte(out), &d)
	return code, d
}

func mustJSON(v any) json.RawMessage { b, _ := json.Marshal(v); return b }

func (b *blog) post(t *testing.T, id uint) Post {
	var p Post
	if err := b.app.DB.First(&p, id).Error; err != nil {
		t.Fatal(err)
	}
	return p
}

// The people's pages stay the app's, with the link element only where a
// page has a graph; the app's own forms keep their CSRF check; gin's
// logger sees the site's requests.
func TestGinBlog_PeoplesPagesAndTheAppsCSRF(t *testing.T) {
	b := start(t)
	c := b.client()
	link := string(site.LinkTag)
	for path, want := range map[string]bool{"/": true, "/posts/1": true, "/tag/news": false} {
		code, body, h := send(t, c, "GET", b.srv.URL+path, "")
		if code != 200 || strings.Contains(body, link) != want || (h.Get("Link") != "") != want || !strings.Contains(body, "Hello") {
			t.Errorf("%s: %d, Link %q, link element %v, want %v:\n%s", path, code, h.Get("Link"), strings.Contains(body, link), want, body)
		}
	}
	_, page, _ := send(t, c, "GET", b.srv.URL+"/login", "")
	token := regexp.MustCompile(`name="_csrf" value="([^"]+)"`).FindStringSubmatch(page)
	if token == nil {
		t.Fatalf("no CSRF token on the login page:\n%s", page)
	}
	form := url.Values{"email": {"admin@example.com"}, "password": {"admin"}}
	if code, _, _ := send(t, c, "POST", b.srv.URL+"/login", form.Encode(), "Content-Type", "application/x-www-form-urlencoded"); code != 403 {
		t.Errorf("the app's form without its token: %d", code)
	}
	form.Set("_csrf", token[1])
	if code, _, _ := send(t, c, "POST", b.srv.URL+"/login", form.Encode(), "Content-Type", "application/x-www-form-urlencoded"); code != 303 {
		t.Errorf("the app's form with its token: %d", code)
	}
	if code, body, _ := send(t, c, "GET", b.srv.URL+"/admin/post/1/edit", ""); code != 200 || !strings.Contains(body, "Edit “Hello”") {
		t.Errorf("the admin's edit page: %d %s", code, body)
	}
	send(t, c, "GET", b.srv.URL+"/?affordances=1", "")
	if logs := b.logs.String(); !strings.Contains(logs, `"/?affordances=1"`) || !strings.Contains(logs, `"/login"`) {
		t.Errorf("gin's logger did not see the site's requests:\n%s", logs)
	}
}

// An agent signs in, writes a post, edits it and reads it back, on the
// admin's session; no action runs on a post that does not exist or for a
// reader; the person's forms of the library keep the app's CSRF check.
func TestGinBlog_AnAgentOnTheSession(t *testing.T) {
	b := start(t)
	reader := b.client()
	if code, d := b.call(t, reader, "/login", "signIn", SignInInput{Email: "reader@example.com", Password: "reader"}); code != 200 || !d.OK {
		t.Fatalf("the reader signs in: %d %+v", code, d)
	}
	if code, d := b.call(t, reader, "/admin/post/1/edit", "updatePost", PostInput{Title: "Pwned"}); code != 404 || d.Error.Code != protocol.CodeNotFound {
		t.Errorf("a reader edits: %d %+v", code, d)
	}
	admin := b.client()
	if code, d := b.call(t, admin, "/login", "signIn", SignInInput{Email: "admin@example.com", Password: "wrong"}); code != 409 || d.OK {
		t.Errorf("a wrong password: %d %+v", code, d)
	}
	b.call(t, admin, "/login", "signIn", SignInInput{Email: "admin@example.com", Password: "admin"})
	code, d := b.call(t, admin, "/admin/posts", "createPost", PostInput{Title: "Second", Body: "Draft.", Tag: "news"})
	if code != 200 || d.Redirect != "/admin/post/2/edit" {
		t.Fatalf("createPost: %d %+v", code, d)
	}
	if code, d := b.call(t, admin, "/admin/post/2/edit", "updatePost", PostInput{Title: "Second", Body: "Done.", Tag: "news", Published: true}); code != 200 || !d.OK {
		t.Fatalf("updatePost: %d %+v", code, d)
	}
	if _, body, _ := send(t, admin, "GET", b.srv.URL+"/posts/2", "", "Accept", protocol.MediaType); !strings.Contains(body, `"body":"Done."`) {
		t.Errorf("read back: %s", body)
	}
	if code, d := b.call(t, admin, "/admin/post/999/edit", "updatePost", PostInput{Title: "Ghost"}); code != 404 || d.Error.Code != protocol.CodeNotFound {
		t.Errorf("a post that does not exist: %d %+v", code, d)
	}
	var n int64
	b.app.DB.Model(&Post{}).Count(&n)
	if n != 2 || b.post(t, 1).Title != "Hello" {
		t.Errorf("posts after the refused calls: %d, first %q", n, b.post(t, 1).Title)
	}

	// The person's form of the library (the token page) carries the app's
	// CSRF token, and is refused without it.
	_, page, _ := send(t, admin, "GET", b.srv.URL+"/account/tokens", "")
	token := regexp.MustCompile(`name="_csrf" value="([^"]+)"`).FindStringSubmatch(page)
	if token == nil {
		t.Fatalf("no CSRF token in the library's form:\n%s", page)
	}
	person := []string{"Content-Type", "application/x-www-form-urlencoded", "Origin", b.srv.URL,
		"Sec-Fetch-Site", "same-origin", "Sec-Fetch-Mode", "navigate", "Sec-Fetch-User", "?1"}
	form := url.Values{"_action": {"createToken"}, "label": {"laptop"}}
	if code, _, _ := send(t, admin, "POST", b.srv.URL+"/account/tokens", form.Encode(), person...); code != 403 {
		t.Errorf("the library's form without the app's CSRF token: %d", code)
	}
	form.Set("_csrf", token[1])
	if code, body, _ := send(t, admin, "POST", b.srv.URL+"/account/tokens", form.Encode(), person...); code != 303 {
		t.Errorf("the person's form with it: %d %s", code, body)
	}
}

// A script's token, through /mcp: the same edit as a tool call.
func TestGinBlog_MCPWithAToken(t *testing.T) {
	b := start(t)
	secret, _, err := b.kit.Issue(context.Background(), "1", "script", tokens.Grant{})
	if err != nil {
		t.Fatal(err)
	}
	c := b.client()
	h := []string{"Authorization", "Bearer " + secret, "Content-Type", "application/json", "Accept", "application/json, text/event-stream"}
	rpc := func(id int, method string, params any) string {
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, id, method, mustJSON(params))
		code, out, hdr := send(t, c, "POST", b.srv.URL+"/mcp", body, h...)
		if sid := hdr.Get("Mcp-Session-Id"); sid != "" {
			h = append(h, "Mcp-Session-Id", sid, "MCP-Protocol-Version", "2025-06-18")
		}
		if code != 200 {
			t.Fatalf("%s: %d %s", method, code, out)
		}
		return out
	}
	rpc(1, "initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "test", "version": "0"}})
	send(t, c, "POST", b.srv.URL+"/mcp", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, h...)
	if out := rpc(2, "tools/list", map[string]any{}); !strings.Contains(out, `"name":"updatePost"`) {
		t.Fatalf("tools/list: %s", out)
	}
	out := rpc(3, "tools/call", map[string]any{"name": "updatePost", "arguments": map[string]any{
		"page": "/admin/post/1/edit", "title": "Hello again", "body": "Edited by a script.", "tag": "news", "published": true}})
	if !strings.Contains(out, "Post saved.") || b.post(t, 1).Body != "Edited by a script." {
		t.Errorf("tools/call: %s", out)
	}
}

// afford check --strict, with the admin's token: every check passes or
// skips, none warns.
func TestGinBlog_Conformance(t *testing.T) {
	b := start(t)
	secret, _, err := b.kit.Issue(context.Background(), "1", "checker", tokens.Grant{})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := conformance.Run(context.Background(), conformance.Config{BaseURL: b.srv.URL, Token: secret,
		Pages: []string{"/posts/1", "/admin/post/1/edit", "/admin/posts", "/login"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.Results {
		if r.Status != conformance.Pass && r.Status != conformance.Skip {
			t.Errorf("%s %s: %s", r.ID, r.Status, r.Detail)
		}
	}
}
