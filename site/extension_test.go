package site_test

import (
	"errors"
	"html/template"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site"
)

// An extension's gate holds back a call on every door (an agent's JSON
// call, the person's own form post, another transport through Execute),
// runs only for calls the core would run (a confirm action not yet
// confirmed is asked first, without the gate), and a gate that fails
// or panics is internal, its error never shown.
func TestExtension_GateOnEveryDoor(t *testing.T) {
	var asked []string
	refuse := errors.New("refuse")
	gate := site.ExtensionFunc(func(x *site.Extender) {
		x.Gate(site.StagePolicy, func(r *site.Request, c *site.Consent) error {
			asked = append(asked, c.Action+" "+string(r.Actor()))
			switch c.Action {
			case "panics":
				panic("a gate's bug")
			case "fails":
				return errors.New("secret: database password wrong")
			}
			return refuse
		})
		x.Gate(site.StagePolicy, func(r *site.Request, c *site.Consent) error { return nil })
	})
	auth := site.AuthFunc(func(r *http.Request) (site.Caller, error) {
		if _, ok := site.BearerToken(r); ok {
			return site.Caller{ID: "tok", Mode: protocol.AuthBearer, SignedIn: true}, nil
		}
		if _, err := r.Cookie("s"); err == nil {
			return site.Caller{ID: "sess", Mode: protocol.AuthCookie, SignedIn: true}, nil
		}
		return site.Caller{}, nil
	})
	s := site.New(site.Options{Auth: auth, Logger: slog.New(slog.DiscardHandler)}, site.ExtensionFunc(func(x *site.Extender) {
		x.Gate(site.StagePolicy, func(r *site.Request, c *site.Consent) error {
			if c.Action == "order" {
				return site.Unavailable("held back by the first gate")
			}
			return nil
		})
	}), gate)
	p := s.Page("/p", site.PageOptions{})
	ran := 0
	for _, a := range []site.Action{
		{Name: "order", Expose: protocol.ExposePublic},
		{Name: "sure", Expose: protocol.ExposeConfirm},
		{Name: "panics", Expose: protocol.ExposePublic},
		{Name: "fails", Expose: protocol.ExposePublic},
	} {
		site.Handle(p, a, func(r *site.Request, in struct{}) (site.Done, error) { ran++; return site.Done{}, nil })
	}
	post := func(body, ctype string, h ...string) *httptest.ResponseRecorder {
		r := httptest.NewRequest("POST", "/p", strings.NewReader(body))
		r.Header.Set("Content-Type", ctype)
		for i := 0; i+1 < len(h); i += 2 {
			r.Header.Set(h[i], h[i+1])
		}
		w := httptest.NewRecorder()
		s.ServeHTTP(w, r)
		return w
	}
	if w := post(`{"action":"order"}`, protocol.MediaType); w.Code != 409 || !strings.Contains(w.Body.String(), "first gate") {
		t.Errorf("the agent's call: %d %s", w.Code, w.Body)
	}
	form := url.Values{"_action": {"order"}}.Encode()
	if w := post(form, "application/x-www-form-urlencoded", "Cookie", "s=1", "Origin", "http://example.com", "Sec-Fetch-Mode", "navigate", "Sec-Fetch-User", "?1"); w.Code != 409 {
		t.Errorf("the person's form: %d %s", w.Code, w.Body)
	}
	_, err := s.Execute(httptest.NewRequest("POST", "/", nil), site.Call{Call: protocol.Call{Action: "order"}, Page: "/p"})
	var e *site.Error
	if !errors.As(err, &e) || e.Status() != http.StatusConflict {
		t.Errorf("through Execute: %v", err)
	}
	bearer := []string{"Authorization", "Bearer t"}
	if w := post(`{"action":"sure"}`, protocol.MediaType, bearer...); w.Code != 428 {
		t.Errorf("a confirm action not confirmed: %d %s", w.Code, w.Body)
	}
	if len(asked) != 0 {
		t.Errorf("the second gate ran after the first refused, or before the core's confirmation: %v", asked)
	}
	if w := post(`{"action":"sure","confirm":true}`, protocol.MediaType, bearer...); w.Code != 500 || strings.Contains(w.Body.String(), "refuse") {
		t.Errorf("a gate's plain error: %d %s", w.Code, w.Body)
	}
	for _, name := range []string{"panics", "fails"} {
		if w := post(`{"action":"`+name+`"}`, protocol.MediaType); w.Code != 500 || strings.Contains(w.Body.String(), "secret") || strings.Contains(w.Body.String(), "bug") {
			t.Errorf("%s: %d %s", name, w.Code, w.Body)
		}
	}
	if ran != 0 || strings.Join(asked, ",") != "sure token-agent,panics anonymous,fails anonymous" {
		t.Errorf("ran %d; the gates were asked %v", ran, asked)
	}
}

// An extension's script is on every page the site renders; a tag that is
// not a script element is refused at start-up.
func TestExtension_Script(t *testing.T) {
	tag := template.HTML(`<script src="/_ext/pay.js" defer></script>`)
	s := site.New(site.Options{}, site.ExtensionFunc(func(x *site.Extender) { x.Script(tag) }))
	s.Page("/p", site.PageOptions{View: template.Must(template.New("p").Parse(`<head>{{.Scripts}}</head>`))})
	r := httptest.NewRequest("GET", "/p", nil)
	w := httptest.NewRecorder()
	s.ServeHTTP(w, r)
	if !strings.Contains(w.Body.String(), string(tag)) {
		t.Errorf("the page: %s", w.Body)
	}
	defer func() {
		if recover() == nil {
			t.Error("an img tag was taken for a script")
		}
	}()
	site.New(site.Options{}, site.ExtensionFunc(func(x *site.Extender) { x.Script(`<img src=x onerror=alert(1)>`) }))
}

// What extensions add to a page's head goes just before its </head>, in
// their order, made from the page's own view, whatever the layout; a page
// without a head is left as it is, and a nil function is refused.
func TestExtender_Head(t *testing.T) {
	s := site.New(site.Options{},
		site.ExtensionFunc(func(x *site.Extender) {
			x.Head(func(v *site.View) template.HTML { return template.HTML("<meta name=a content=" + v.Route + ">") })
		}),
		site.ExtensionFunc(func(x *site.Extender) {
			x.Head(func(v *site.View) template.HTML { return "<meta name=b>" })
		}))
	s.Page("/p", site.PageOptions{View: template.Must(template.New("p").Parse(`<html><head><title>P</title></head><body></body></html>`))})
	s.Page("/bare", site.PageOptions{View: template.Must(template.New("b").Parse(`<p>no head</p>`))})
	for path, want := range map[string]string{
		"/p":    `<html><head><title>P</title><meta name=a content=/p><meta name=b></head><body></body></html>`,
		"/bare": `<p>no head</p>`,
	} {
		w := httptest.NewRecorder()
		s.ServeHTTP(w, httptest.NewRequest("GET", path, nil))
		if w.Body.String() != want {
			t.Errorf("%s: %s, want %s", path, w.Body, want)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("a nil head was taken")
		}
	}()
	site.New(site.Options{}, site.ExtensionFunc(func(x *site.Extender) { x.Head(nil) }))
}

// ServeScript serves an extension's script with the headers of every
// script of the library, and its tag carries the script's integrity;
// WriteError answers a site error with its status, as a delta to an agent,
// and anything else as a bare 500 that shows nothing of it.
func TestExtension_ServeScriptAndWriteError(t *testing.T) {
	js := []byte("console.log(1)\n")
	var tag template.HTML
	s := site.New(site.Options{Logger: slog.New(slog.DiscardHandler)}, site.ExtensionFunc(func(x *site.Extender) {
		tag = x.ServeScript("/_ext/x.js", js)
		x.Door("/_ext/fail", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Query().Get("kind") == "site" {
				x.Site().WriteError(w, r, site.NotFound("no such thing"))
				return
			}
			x.Site().WriteError(w, r, errors.New("secret detail"))
		}))
	}))
	if want := `<script src="/_ext/x.js" integrity="sha384-`; !strings.HasPrefix(string(tag), want) {
		t.Errorf("the tag: %s", tag)
	}
	get := func(method, path string, h ...string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(method, path, nil)
		for i := 0; i+1 < len(h); i += 2 {
			r.Header.Set(h[i], h[i+1])
		}
		w := httptest.NewRecorder()
		s.ServeHTTP(w, r)
		return w
	}
	if w := get("GET", "/_ext/x.js"); w.Code != 200 || w.Body.String() != string(js) || w.Header().Get("Content-Type") != "text/javascript; charset=utf-8" ||
		w.Header().Get("X-Content-Type-Options") != "nosniff" {
		t.Errorf("the script: %d %v %q", w.Code, w.Header(), w.Body)
	}
	if w := get("POST", "/_ext/x.js"); w.Code != 405 {
		t.Errorf("a POST of the script: %d", w.Code)
	}
	if w := get("GET", "/_ext/fail?kind=site"); w.Code != 404 || !strings.Contains(w.Body.String(), "no such thing") {
		t.Errorf("a site error: %d %s", w.Code, w.Body)
	}
	if w := get("GET", "/_ext/fail?kind=site", "Accept", protocol.MediaType); w.Code != 404 || !strings.Contains(w.Body.String(), `"code":"not_found"`) {
		t.Errorf("a site error to an agent: %d %s", w.Code, w.Body)
	}
	if w := get("GET", "/_ext/fail"); w.Code != 500 || strings.Contains(w.Body.String(), "secret") {
		t.Errorf("another error: %d %s", w.Code, w.Body)
	}
}

// What an extension keeps on a site is that site's: another site, or one
// without the extension, holds nothing under the key.
func TestExtender_SetValue(t *testing.T) {
	type key struct{}
	keep := func(v string) site.Extension {
		return site.ExtensionFunc(func(x *site.Extender) { x.SetValue(key{}, v) })
	}
	a := site.New(site.Options{Logger: slog.New(slog.DiscardHandler)}, keep("a"))
	b := site.New(site.Options{Logger: slog.New(slog.DiscardHandler)}, keep("b"))
	none := site.New(site.Options{Logger: slog.New(slog.DiscardHandler)})
	if a.Value(key{}) != "a" || b.Value(key{}) != "b" || none.Value(key{}) != nil {
		t.Errorf("values: %v %v %v", a.Value(key{}), b.Value(key{}), none.Value(key{}))
	}
}
