package echonotes

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/affordances-go/affordances/conformance"
	"github.com/affordances-go/affordances/internal/syncbuf"
	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site"
)

func start(t *testing.T) (*App, *httptest.Server, *syncbuf.Buffer) {
	logs := &syncbuf.Buffer{}
	app := New([]byte("0123456789abcdef0123456789abcdef"))
	app.LogTo = logs
	srv := httptest.NewServer(app.WithAgents())
	t.Cleanup(srv.Close)
	return app, srv, logs
}

func browser() *http.Client {
	jar, _ := cookiejar.New(nil)
	return &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

func send(t *testing.T, c *http.Client, method, u, body string, header ...string) (int, string) {
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
	return res.StatusCode, string(out)
}

func call(t *testing.T, c *http.Client, base, path, action string, input any) (int, protocol.Delta) {
	t.Helper()
	in, _ := json.Marshal(input)
	body, _ := json.Marshal(protocol.Call{Action: action, Input: in})
	code, out := send(t, c, "POST", base+path, string(body), "Content-Type", protocol.MediaType, "Origin", base)
	var d protocol.Delta
	json.Unmarshal([]byte(out), &d)
	return code, d
}

// An agent on ann's session signs in, adds a note, edits it and reads it
// back; bob's note and a made-up one answer not_found and change nothing;
// echo's CSRF keeps guarding the app's forms and the person's forms of
// the library; echo's logger sees the site's requests; the link element
// is on pages with a graph only.
func TestEchoNotes_Adopted(t *testing.T) {
	app, srv, logs := start(t)
	ann := browser()
	if code, d := call(t, ann, srv.URL, "/login", "signIn", SignInInput{Email: "ann@example.com", Password: "ann"}); code != 200 || !d.OK {
		t.Fatalf("signIn: %d %+v", code, d)
	}
	code, d := call(t, ann, srv.URL, "/", "addNote", NoteInput{Title: "Ideas", Body: "One."})
	if code != 200 || d.Redirect != "/notes/2" {
		t.Fatalf("addNote: %d %+v", code, d)
	}
	if code, d := call(t, ann, srv.URL, "/notes/2", "editNote", NoteInput{Title: "Ideas", Body: "Two."}); code != 200 || !d.OK {
		t.Fatalf("editNote: %d %+v", code, d)
	}
	if _, body := send(t, ann, "GET", srv.URL+"/notes/2", "", "Accept", protocol.MediaType); !strings.Contains(body, `"body":"Two."`) {
		t.Errorf("read back: %s", body)
	}
	bob := browser()
	call(t, bob, srv.URL, "/login", "signIn", SignInInput{Email: "bob@example.com", Password: "bob"})
	for _, path := range []string{"/notes/1", "/notes/999"} {
		if code, d := call(t, bob, srv.URL, path, "editNote", NoteInput{Title: "Pwned"}); code != 404 || d.Error == nil || d.Error.Code != protocol.CodeNotFound {
			t.Errorf("bob edits %s: %d %+v", path, code, d)
		}
	}
	if n, _ := app.Note(1, "1"); n.Title != "Groceries" || len(app.Notes(2)) != 0 {
		t.Errorf("the refused edits wrote: %+v %v", n, app.Notes(2))
	}

	// The app's own form, without and with echo's CSRF token.
	_, home := send(t, ann, "GET", srv.URL+"/", "")
	tok := regexp.MustCompile(`name="_csrf" value="([^"]+)"`).FindStringSubmatch(home)
	if tok == nil || !strings.Contains(home, string(site.LinkTag)) {
		t.Fatalf("the home page: %s", home)
	}
	form := url.Values{"title": {"By hand"}}
	if code, _ := send(t, ann, "POST", srv.URL+"/notes", form.Encode(), "Content-Type", "application/x-www-form-urlencoded"); code != 400 {
		t.Errorf("the app's form without its token: %d", code)
	}
	form.Set("_csrf", tok[1])
	if code, _ := send(t, ann, "POST", srv.URL+"/notes", form.Encode(), "Content-Type", "application/x-www-form-urlencoded"); code != 303 {
		t.Errorf("the app's form with its token: %d", code)
	}
	// The library's form (the one the site writes for editNote) carries
	// the same token and is refused with a forged one.
	if _, page := send(t, ann, "GET", srv.URL+"/notes/2", ""); !strings.Contains(page, string(site.LinkTag)) {
		t.Errorf("a note's page has no link element: %s", page)
	}
	lib := url.Values{"_action": {"editNote"}, "title": {"By form"}, "body": {"x"}, "_csrf": {"forged"}}
	if code, _ := send(t, ann, "POST", srv.URL+"/notes/2", lib.Encode(), "Content-Type", "application/x-www-form-urlencoded", "Origin", srv.URL); code != 403 {
		t.Errorf("the library's form with a forged token: %d", code)
	}
	if n, _ := app.Note(1, "2"); n.Title != "Ideas" {
		t.Errorf("the forged form wrote: %+v", n)
	}
	lib.Set("_csrf", tok[1])
	if code, _ := send(t, ann, "POST", srv.URL+"/notes/2", lib.Encode(), "Content-Type", "application/x-www-form-urlencoded", "Origin", srv.URL); code != 303 {
		t.Errorf("the library's form with the token: %d", code)
	}
	if _, page := send(t, ann, "GET", srv.URL+"/login", ""); !strings.Contains(page, string(site.LinkTag)) {
		t.Errorf("the login page (a route with a page): %s", page)
	}
	if logs := logs.String(); !strings.Contains(logs, `"uri":"/notes/2"`) || !strings.Contains(logs, `"uri":"/login"`) {
		t.Errorf("echo's logger did not see the site's requests:\n%s", logs)
	}
}

// afford check with ann's session cookie: every check passes or skips.
func TestEchoNotes_Conformance(t *testing.T) {
	_, srv, _ := start(t)
	ann := browser()
	call(t, ann, srv.URL, "/login", "signIn", SignInInput{Email: "ann@example.com", Password: "ann"})
	u, _ := url.Parse(srv.URL)
	var cookies []string
	for _, c := range ann.Jar.Cookies(u) {
		cookies = append(cookies, c.Name+"="+c.Value)
	}
	rep, err := conformance.Run(context.Background(), conformance.Config{BaseURL: srv.URL, Cookie: strings.Join(cookies, "; "), Pages: []string{"/notes/1"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.Results {
		if r.Status != conformance.Pass && r.Status != conformance.Skip {
			t.Errorf("%s %s: %s", r.ID, r.Status, r.Detail)
		}
	}
}
