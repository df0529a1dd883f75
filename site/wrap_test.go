package site_test

import (
	"bytes"
	"errors"
	"html/template"
	"io"
	"log/slog"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site"
	"github.com/affordances-go/affordances/site/sitetest"
)

// wrapFixture is a site with two pages in front of an application that
// answers every request with what it received: its own REST API, its own
// forms and method overrides on the same URLs as the site's pages.
func wrapFixture(t *testing.T) (*sitetest.Client, *[]string) {
	t.Helper()
	s := site.New(site.Options{})
	load := func(r *site.Request) (*site.State, error) {
		return withEntities(&site.State{}, map[string]any{"product": product{Name: "Tee"}}), nil
	}
	// /dials/{id}: the application renders the page (no View).
	p := s.Page("/dials/{id}", site.PageOptions{Description: "a dial", Load: load})
	site.Handle(p, site.Action{Name: "rename", Expose: "public"},
		func(r *site.Request, in struct {
			Name string `json:"name"`
		}) (site.Result[struct{}], error) {
			return site.Result[struct{}]{Message: "renamed to " + in.Name}, nil
		})
	// /own: the site renders the page.
	s.Page("/own", site.PageOptions{View: productView, Load: load})
	var seen []string
	app := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		seen = append(seen, r.Method+" "+r.URL.Path+" "+string(body))
		switch r.URL.Path {
		case "/dials/json":
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"id":1}`))
		case "/dials/moved":
			http.Redirect(w, r, "/dials/1", http.StatusFound)
		default:
			w.Write([]byte("<!doctype html><p>app " + r.Method + "</p>"))
		}
	})
	return sitetest.New(t, s.Wrap(app)), &seen
}

func TestWrap_TheApplicationKeepsItsOwnMethodsAndForms(t *testing.T) {
	c, seen := wrapFixture(t)
	for _, m := range []string{"DELETE", "PUT", "PATCH", "OPTIONS"} {
		*seen = nil
		w := c.Do(m, "/dials/1", strings.NewReader(`{"x":1}`), sitetest.Header("Content-Type", "application/json"))
		if w.Code != 200 || len(*seen) != 1 || (*seen)[0] != m+` /dials/1 {"x":1}` {
			t.Errorf("%s: status %d, the app saw %q", m, w.Code, *seen)
		}
		// A page the site renders itself is the site's alone.
		*seen = nil
		if w := c.Do(m, "/own", nil); w.Code != 405 || len(*seen) != 0 {
			t.Errorf("%s of the site's own page: status %d, the app saw %q", m, w.Code, *seen)
		}
	}
	// An agent's request of another method is the protocol's 405.
	if w := c.Do("PUT", "/dials/1", nil, sitetest.Header("Accept", agent)); w.Code != 405 || w.Header().Get("Allow") != "GET, HEAD, POST" {
		t.Errorf("an agent's PUT: %d %v", w.Code, w.Header())
	}
	// The application's own forms, with or without a method override,
	// reach it with their body intact.
	for _, path := range []string{"/dials/1"} {
		for _, form := range []url.Values{{"name": {"kitchen"}}, {"_method": {"PATCH"}, "name": {"kitchen"}}} {
			*seen = nil
			w := c.PostForm(path, form)
			if w.Code != 200 || len(*seen) != 1 || (*seen)[0] != "POST "+path+" "+form.Encode() {
				t.Errorf("form %v on %s: status %d, the app saw %q", form, path, w.Code, *seen)
			}
		}
	}
	// A multipart form of the application (a file upload) too.
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	mw.WriteField("name", "kitchen")
	fw, _ := mw.CreateFormFile("photo", "p.jpg")
	fw.Write(bytes.Repeat([]byte("x"), 2<<20)) // over the site's body limit
	mw.Close()
	*seen = nil
	w := c.Do("POST", "/dials/1", bytes.NewReader(body.Bytes()), sitetest.Header("Content-Type", mw.FormDataContentType()))
	if w.Code != 200 || len(*seen) != 1 || len((*seen)[0]) != len("POST /dials/1 ")+body.Len() {
		t.Errorf("multipart: status %d, the app saw %d requests", w.Code, len(*seen))
	}
	// On the site's own page, a form that names no action is the site's 400.
	*seen = nil
	if w := c.PostForm("/own", url.Values{"name": {"kitchen"}}); w.Code != 400 || len(*seen) != 0 {
		t.Errorf("a form without an action on the site's page: %d, the app saw %q", w.Code, *seen)
	}
}

func TestWrap_TheLibrarysFormsStillRunActions(t *testing.T) {
	c, seen := wrapFixture(t)
	// A form of the library (it names an action of the page) runs the
	// action, even on a page the application renders.
	w := c.PostForm("/dials/1", url.Values{site.FormActionField: {"rename"}, "name": {"hall"}})
	if w.Code != http.StatusSeeOther || len(*seen) != 0 {
		t.Errorf("library form: status %d, the app saw %q", w.Code, *seen)
	}
	// An agent's call is the site's.
	if w := c.Call("/dials/1", "rename", map[string]any{"name": "hall"}); w.Code != 200 || len(*seen) != 0 {
		t.Errorf("call: status %d, the app saw %q", w.Code, *seen)
	}
}

func TestWrap_LinkOnlyOnTheApplicationsHTMLPages(t *testing.T) {
	c, _ := wrapFixture(t)
	w := c.Get("/dials/1")
	if w.Header().Get("Link") == "" || w.Header().Get("Vary") != "Accept" {
		t.Errorf("HTML page: %v", w.Header())
	}
	for _, path := range []string{"/dials/json", "/dials/moved"} {
		w := c.Get(path)
		if w.Header().Get("Link") != "" || w.Header().Get("Vary") != "Accept" {
			t.Errorf("%s (%d): %v", path, w.Code, w.Header())
		}
	}
	// Markdown is the site's, on a page the application renders too.
	if w := c.Get("/dials/1", sitetest.Header("Accept", "text/markdown")); !strings.HasPrefix(w.Header().Get("Content-Type"), "text/markdown") ||
		!strings.Contains(w.Body.String(), "`rename`") {
		t.Errorf("Markdown of a wrapped page: %v\n%s", w.Header(), w.Body)
	}
	// Not after a POST the application answered either.
	if w := c.PostForm("/dials/1", url.Values{"name": {"x"}}); w.Header().Get("Link") != "" {
		t.Errorf("app's form answer: %v", w.Header())
	}
}

func TestSite_WithoutAnApplicationOtherMethodsAre405(t *testing.T) {
	s := site.New(site.Options{})
	s.Page("/", site.PageOptions{View: productView, Load: func(*site.Request) (*site.State, error) {
		return withEntities(&site.State{}, map[string]any{"product": product{Name: "Tee"}}), nil
	}})
	c := sitetest.New(t, s)
	if w := c.Do("DELETE", "/", nil); w.Code != 405 || w.Header().Get("Allow") != "GET, HEAD, POST" {
		t.Errorf("DELETE: %d %v", w.Code, w.Header())
	}
	if w := c.PostForm("/", url.Values{"name": {"x"}}); w.Code != 400 {
		t.Errorf("a form naming no action: %d %s", w.Code, w.Body)
	}
}

// An application on another engine than html/template writes the
// library's link tag and forms with plain functions, on a page it
// renders under Wrap.
func TestView_TheLibrarysFormsWithoutTemplates(t *testing.T) {
	s := site.New(site.Options{})
	p := s.Page("/dials/{id}", site.PageOptions{Description: "a dial", Load: func(r *site.Request) (*site.State, error) {
		return withEntities(&site.State{}, map[string]any{"id": r.PathValue("id")}), nil
	}})
	site.Handle(p, site.Action{Name: "rename", Expose: "public"},
		func(r *site.Request, in struct {
			Name string `json:"name" title:"New name"`
		}) (site.Result[struct{}], error) {
			return site.Result[struct{}]{}, nil
		})
	app := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		v, err := s.View(r)
		if err != nil {
			http.Error(w, err.Error(), 500)
			return
		}
		form, err := site.ActionForm(v, "rename", "_button", "Rename")
		if err != nil {
			http.Error(w, err.Error(), 500)
			return
		}
		io.WriteString(w, "<!doctype html><head>"+string(site.LinkTag)+"</head><p>dial "+site.NewKey[string]("id").Get(v.State)+"</p>"+string(form))
	})
	c := sitetest.New(t, s.Wrap(app))
	body := c.Get("/dials/7").Body.String()
	for _, want := range []string{`<link rel="affordances"`, "dial 7", `name="_action" value="rename"`, "New name", ">Rename</button>"} {
		if !strings.Contains(body, want) {
			t.Errorf("missing %q in\n%s", want, body)
		}
	}
	// The form it wrote runs the action through the site.
	if w := c.PostForm("/dials/7", url.Values{site.FormActionField: {"rename"}, "name": {"hall"}}); w.Code != http.StatusSeeOther {
		t.Errorf("post: %d %s", w.Code, w.Body)
	}
	if _, err := s.View(httptest.NewRequest("GET", "/nowhere", nil)); !errors.Is(err, site.ErrNotFound) {
		t.Errorf("View of no page: %v", err)
	}
}

// An application that writes its status before any Content-Type (as
// net/http allows: it sniffs text/html at the first Write) still gets the
// Link header on its HTML page.
func TestWrap_LinkWhenTheStatusComesFirst(t *testing.T) {
	s := site.New(site.Options{Logger: slog.New(slog.DiscardHandler)})
	s.Page("/notes/{id}", site.PageOptions{Load: func(r *site.Request) (*site.State, error) { return &site.State{}, nil }})
	app := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusOK)
		w.Write([]byte("<!doctype html><title>Note</title><p>hello</p>"))
	})
	res := sitetest.New(t, s.Wrap(app)).Get("/notes/1")
	if res.Code != 200 || res.Header().Get("Link") == "" {
		t.Fatalf("status first: %d, Link %q, Content-Type %q", res.Code, res.Header().Get("Link"), res.Header().Get("Content-Type"))
	}
}

// With the form door off, a form posted to a page, even one naming an
// action, is the application's (its CSRF middleware sees it), or 415
// without one; the library writes no forms; agents' calls still run.
func TestNoFormDoor(t *testing.T) {
	build := func(app http.Handler) (*site.Site, http.Handler, *int) {
		ran := 0
		s := site.New(site.Options{NoFormDoor: true, Logger: slog.New(slog.DiscardHandler)})
		view := template.Must(template.New("v").Funcs(site.Funcs()).Parse(`<p>{{actionForm . "add"}}</p>`))
		opts := site.PageOptions{Load: func(r *site.Request) (*site.State, error) { return &site.State{}, nil }}
		if app == nil {
			opts.View = view
		}
		p := s.Page("/notes", opts)
		site.Handle(p, site.Action{Name: "add", Expose: protocol.ExposePublic},
			func(r *site.Request, in struct{}) (site.Done, error) { ran++; return site.Done{}, nil })
		if app == nil {
			return s, s, &ran
		}
		return s, s.Wrap(app), &ran
	}
	appSaw := 0
	app := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { appSaw++; w.WriteHeader(http.StatusForbidden) })
	_, h, ran := build(app)
	c := sitetest.New(t, h)
	if res := c.PostForm("/notes", url.Values{"_action": {"add"}}); res.Code != http.StatusForbidden || appSaw != 1 || *ran != 0 {
		t.Fatalf("a library form with the door off: %d, the app saw %d, ran %d", res.Code, appSaw, *ran)
	}
	if res := c.Call("/notes", "add", nil); res.Code != 200 || *ran != 1 {
		t.Fatalf("an agent's call: %d, ran %d", res.Code, *ran)
	}
	_, h, ran = build(nil)
	c = sitetest.New(t, h)
	if res := c.PostForm("/notes", url.Values{"_action": {"add"}}); res.Code != http.StatusUnsupportedMediaType || *ran != 0 {
		t.Fatalf("a form without an application: %d, ran %d", res.Code, *ran)
	}
	if res := c.Get("/notes"); strings.Contains(res.Body.String(), "<form") {
		t.Fatalf("a form written with the door off: %s", res.Body)
	}
}
