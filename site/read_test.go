package site_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/affordances-go/affordances/internal/wiretest"
	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site"
	"github.com/affordances-go/affordances/site/sitetest"
)

func TestNegotiation_OnlyTheMediaTypeOrTheQueryAliasGetAGraph(t *testing.T) {
	f := newFixture(t)
	cases := []struct {
		accept, query string
		graph         bool
	}{
		{"", "", false},
		{"text/html", "", false},
		{"*/*", "", false},
		{"application/json", "", false},
		{"application/*", "", false},
		{agent, "", true},
		{"APPLICATION/VND.AFFORDANCES+JSON", "", true},
		{"text/html, application/vnd.affordances+json;q=0.5", "", true},
		{"application/vnd.affordances+json;q=0", "", false},
		{"text/html", "affordances=1", true},
		{"", "affordances=1", true},
		{"", "affordances=0", false},
		{"", "affordances=true", false},
		{"", "q=x&affordances=1", true},
		{"", "affordance%73=1", true},
	}
	for _, c := range cases {
		target := "/products/tee"
		if c.query != "" {
			target += "?" + c.query
		}
		var h []string
		if c.accept != "" {
			h = []string{"Accept", c.accept}
		}
		w := f.c.Get(target, sitetest.Header(h...))
		if w.Code != 200 {
			t.Fatalf("Accept %q query %q: status %d", c.accept, c.query, w.Code)
		}
		if w.IsDocument() != c.graph {
			t.Errorf("Accept %q query %q: graph=%v, want %v (Content-Type %q)", c.accept, c.query, w.IsDocument(), c.graph, w.Header().Get("Content-Type"))
		}
	}
}

func TestQueryAlias_IsRemovedFromTheQueryTheLoaderSees(t *testing.T) {
	f := newFixture(t)
	for target, want := range map[string]string{
		"/products/tee?affordances=1":                 "",
		"/products/tee?q=tee&affordances=1&page=2":    "q=tee&page=2",
		"/products/tee?affordances=1&affordances=1&x": "x",
	} {
		w := f.c.Get(target)
		if !w.IsDocument() {
			t.Fatalf("%s: not a graph", target)
		}
		if f.lastQuery != want {
			t.Errorf("%s: loader saw query %q, want %q", target, f.lastQuery, want)
		}
		var g protocol.Graph
		json.Unmarshal(w.Body.Bytes(), &g)
		if g.Page != "/products/tee" {
			t.Errorf("%s: page %q", target, g.Page)
		}
	}
	// A browser's query reaches the loader untouched.
	f.c.Get("/products/tee?affordances=0&q=a")
	if f.lastQuery != "affordances=0&q=a" {
		t.Errorf("browser query: loader saw %q", f.lastQuery)
	}
}

func TestGraphResponse_HasMediaTypeVaryAndNoStore(t *testing.T) {
	f := newFixture(t)
	w := f.c.Get("/products/tee", sitetest.Header("Accept", agent))
	h := w.Header()
	if h.Get("Content-Type") != protocol.MediaType || h.Get("Vary") != "Accept" || h.Get("Cache-Control") != "private, no-store" {
		t.Errorf("headers: %v", h)
	}
	if h.Get("Link") != "" {
		t.Errorf("a graph must not advertise itself: Link %q", h.Get("Link"))
	}
	wiretest.Valid(t, "graph.schema.json", w.Body.Bytes())
	wiretest.Golden(t, "graph-anonymous.json", w.Body.Bytes())
}

func TestGraph_SignedInCallerSeesSessionActionsAvailable(t *testing.T) {
	f := newFixture(t)
	w := f.c.Get("/products/tee", sitetest.Header("Accept", agent, "Authorization", "Bearer good"))
	wiretest.Valid(t, "graph.schema.json", w.Body.Bytes())
	wiretest.Golden(t, "graph-signed-in.json", w.Body.Bytes())
}

func TestHTMLResponse_AdvertisesTheGraph(t *testing.T) {
	f := newFixture(t)
	w := f.c.Get("/products/tee", sitetest.Header("Accept", "text/html"))
	h := w.Header()
	if !strings.HasPrefix(h.Get("Content-Type"), "text/html") || h.Get("Vary") != "Accept" || h.Get("Link") != `<?affordances=1>; rel="affordances"` {
		t.Errorf("headers: %v", h)
	}
	body := w.Body.String()
	for _, want := range []string{`<link rel="affordances" href="?affordances=1">`, "<h1>Heavyweight tee</h1>", "<button>addToCart</button>", "<button disabled>review</button>"} {
		if !strings.Contains(body, want) {
			t.Errorf("body lacks %q:\n%s", want, body)
		}
	}
}

func TestHTMLAndGraph_ComeFromTheSameState(t *testing.T) {
	f := newFixture(t)
	f.teeStock = 0
	html := f.c.Get("/products/tee").Body.String()
	var g protocol.Graph
	json.Unmarshal(f.c.Get("/products/tee", sitetest.Header("Accept", agent)).Body.Bytes(), &g)
	if !strings.Contains(html, "<button disabled>addToCart</button>") {
		t.Errorf("HTML shows addToCart available with no stock")
	}
	if a := g.Action("addToCart"); a == nil || a.Available || a.Reason != "sold out" {
		t.Errorf("graph addToCart = %+v, want unavailable, sold out", a)
	}
}

func TestHEAD_IsGETWithoutABody(t *testing.T) {
	f := newFixture(t)
	for _, accept := range []string{agent, "text/html"} {
		get := f.c.Get("/products/tee", sitetest.Header("Accept", accept))
		head := f.c.Do("HEAD", "/products/tee", nil, sitetest.Header("Accept", accept))
		if head.Code != 200 || head.Body.Len() != 0 {
			t.Errorf("%s: HEAD status %d, body %d bytes", accept, head.Code, head.Body.Len())
		}
		for _, k := range []string{"Content-Type", "Content-Length", "Vary", "Link", "Cache-Control"} {
			if get.Header().Get(k) != head.Header().Get(k) {
				t.Errorf("%s: %s differs: GET %q HEAD %q", accept, k, get.Header().Get(k), head.Header().Get(k))
			}
		}
	}
}

func TestOtherMethods_Get405WithAllow(t *testing.T) {
	f := newFixture(t)
	for _, m := range []string{"PUT", "DELETE", "PATCH", "OPTIONS"} {
		w := f.c.Do(m, "/products/tee", nil, sitetest.Header("Accept", agent))
		if w.Code != http.StatusMethodNotAllowed || w.Header().Get("Allow") == "" {
			t.Errorf("%s: status %d, Allow %q", m, w.Code, w.Header().Get("Allow"))
		}
	}
	w := f.c.Do("POST", protocol.WellKnownPath, nil)
	if w.Code != http.StatusMethodNotAllowed || w.Header().Get("Allow") != "GET, HEAD" {
		t.Errorf("POST index: status %d, Allow %q", w.Code, w.Header().Get("Allow"))
	}
}

func TestNotFound_AgentsGetADeltaBrowsersTheNormal404(t *testing.T) {
	f := newFixture(t)
	for _, path := range []string{"/nowhere", "/products/unknown"} {
		w := f.c.Get(path, sitetest.Header("Accept", agent))
		if w.Code != 404 || !w.IsDocument() {
			t.Fatalf("%s agent: status %d type %q", path, w.Code, w.Header().Get("Content-Type"))
		}
		wiretest.Valid(t, "delta.schema.json", w.Body.Bytes())
		var d protocol.Delta
		json.Unmarshal(w.Body.Bytes(), &d)
		if d.OK || d.Error == nil || d.Error.Code != protocol.CodeNotFound {
			t.Errorf("%s: delta %s", path, w.Body)
		}
		b := f.c.Get(path, sitetest.Header("Accept", "text/html"))
		if b.Code != 404 || b.IsDocument() {
			t.Errorf("%s browser: status %d type %q", path, b.Code, b.Header().Get("Content-Type"))
		}
	}
	w := f.c.Get("/products/unknown", sitetest.Header("Accept", agent))
	wiretest.Golden(t, "delta-not-found.json", w.Body.Bytes())
}

func TestLoaderFailure_IsAGenericInternalErrorAndIsLogged(t *testing.T) {
	f := newFixture(t)
	w := f.c.Get("/broken", sitetest.Header("Accept", agent))
	if w.Code != 500 {
		t.Fatalf("status %d", w.Code)
	}
	wiretest.Valid(t, "delta.schema.json", w.Body.Bytes())
	if strings.Contains(w.Body.String(), "EOF") {
		t.Errorf("delta leaks the error: %s", w.Body)
	}
	if !strings.Contains(f.logs.String(), "unexpected EOF") {
		t.Errorf("error not logged: %s", f.logs)
	}
	if b := f.c.Get("/broken"); b.Code != 500 || strings.Contains(b.Body.String(), "EOF") {
		t.Errorf("browser: %d %s", b.Code, b.Body)
	}
}

func TestBearer_RejectedTokenIs401NotAFallBack(t *testing.T) {
	f := newFixture(t)
	w := f.c.Get("/products/tee", sitetest.Header("Accept", agent, "Authorization", "Bearer nope", "Cookie", "session=alice"))
	if w.Code != 401 {
		t.Fatalf("status %d", w.Code)
	}
	wiretest.Valid(t, "delta.schema.json", w.Body.Bytes())
	if !strings.Contains(w.Body.String(), `"unauthorized"`) {
		t.Errorf("body %s", w.Body)
	}
}

func TestExpose_SessionActionsAreListedUnavailableWithoutASession(t *testing.T) {
	f := newFixture(t)
	avail := func(h ...string) (bool, string) {
		var g protocol.Graph
		json.Unmarshal(f.c.Get("/products/tee", sitetest.Header(append([]string{"Accept", agent}, h...)...)).Body.Bytes(), &g)
		a := g.Action("review")
		if a == nil {
			t.Fatal("review not listed")
		}
		return a.Available, a.Reason
	}
	if ok, reason := avail(); ok || reason != "sign in first" {
		t.Errorf("anonymous: %v %q", ok, reason)
	}
	if ok, reason := avail("Cookie", "session=guest"); ok || reason != "sign in first" {
		t.Errorf("guest cookie: %v %q", ok, reason)
	}
	if ok, _ := avail("Cookie", "session=alice"); !ok {
		t.Errorf("signed in by cookie: unavailable")
	}
	if ok, _ := avail("Authorization", "Bearer good"); !ok {
		t.Errorf("signed in by bearer: unavailable")
	}
}

func TestVisibility_HidesAnActionFromGraphAndIndex(t *testing.T) {
	f := newFixture(t)
	names := func(h ...string) (graph, index []string) {
		var g protocol.Graph
		json.Unmarshal(f.c.Get("/products/tee", sitetest.Header(append([]string{"Accept", agent}, h...)...)).Body.Bytes(), &g)
		for _, a := range g.Actions {
			graph = append(graph, a.Name)
		}
		var idx protocol.SiteIndex
		json.Unmarshal(f.c.Get(protocol.WellKnownPath, sitetest.Header(h...)).Body.Bytes(), &idx)
		for _, r := range idx.Routes {
			if r.Route == "/products/[slug]" {
				for _, a := range r.Actions {
					index = append(index, a.Name)
				}
			}
		}
		return
	}
	g, i := names()
	if strings.Join(g, ",") != "addToCart,review" || strings.Join(i, ",") != "addToCart,review" {
		t.Errorf("anonymous sees graph %v, index %v", g, i)
	}
	g, i = names("Cookie", "session=staff")
	if strings.Join(g, ",") != "addToCart,review,setPrice" || strings.Join(i, ",") != "addToCart,review,setPrice" {
		t.Errorf("staff sees graph %v, index %v", g, i)
	}
}

func TestRegistration_RejectsBadActions(t *testing.T) {
	cases := map[string]func(p *site.Page){
		"no expose": func(p *site.Page) {
			site.Handle(p, site.Action{Name: "x"}, func(*site.Request, struct{}) (site.Done, error) {
				return site.Done{}, nil
			})
		},
		"unknown expose": func(p *site.Page) {
			site.Handle(p, site.Action{Name: "x", Expose: "everyone"}, func(*site.Request, struct{}) (site.Done, error) {
				return site.Done{}, nil
			})
		},
		"bad name": func(p *site.Page) {
			site.Handle(p, site.Action{Name: "add to cart", Expose: protocol.ExposePublic}, func(*site.Request, struct{}) (site.Done, error) {
				return site.Done{}, nil
			})
		},
		"duplicate": func(p *site.Page) {
			for range 2 {
				site.Handle(p, site.Action{Name: "x", Expose: protocol.ExposePublic}, func(*site.Request, struct{}) (site.Done, error) {
					return site.Done{}, nil
				})
			}
		},
		"input not an object": func(p *site.Page) {
			site.Handle(p, site.Action{Name: "x", Expose: protocol.ExposePublic}, func(*site.Request, string) (site.Done, error) {
				return site.Done{}, nil
			})
		},
		"bad tag": func(p *site.Page) {
			site.Handle(p, site.Action{Name: "x", Expose: protocol.ExposePublic}, func(*site.Request, struct {
				N string `json:"n" minimum:"1"`
			}) (site.Done, error) {
				return site.Done{}, nil
			})
		},
		"session action on a site without Auth": func(p *site.Page) {
			site.Handle(p, site.Action{Name: "x", Expose: protocol.ExposeSession}, func(*site.Request, struct{}) (site.Done, error) {
				return site.Done{}, nil
			})
		},
		"confirm action on a site without Auth": func(p *site.Page) {
			site.Handle(p, site.Action{Name: "x", Expose: protocol.ExposeConfirm}, func(*site.Request, struct{}) (site.Done, error) {
				return site.Done{}, nil
			})
		},
		"explicit schema that does not compile": func(p *site.Page) {
			site.Handle(p, site.Action{Name: "x", Expose: protocol.ExposePublic, Input: []byte(`{"type":"objekt"}`)}, func(*site.Request, struct{}) (site.Done, error) {
				return site.Done{}, nil
			})
		},
	}
	for name, register := range cases {
		t.Run(name, func(t *testing.T) {
			p := site.New(site.Options{}).Page("/p", site.PageOptions{})
			defer func() {
				msg := fmt.Sprint(recover())
				// The message names the action, the route and the author's
				// line, not this package's.
				if !strings.Contains(msg, "site: action \"") || !strings.Contains(msg, " on /p at ") || !strings.Contains(msg, "read_test.go:") {
					t.Errorf("registration panic %q does not name the action, route and caller", msg)
				}
			}()
			register(p)
		})
	}
}

func TestRegistration_ConflictingPatternsAndLateRegistrationPanic(t *testing.T) {
	mustPanic := func(name string, f func()) string {
		t.Helper()
		msg := ""
		func() {
			defer func() {
				if p := recover(); p == nil {
					t.Errorf("%s: no panic", name)
				} else {
					msg = fmt.Sprint(p)
				}
			}()
			f()
		}()
		return msg
	}
	s := site.New(site.Options{})
	s.Page("/a/{x}", site.PageOptions{})
	msg := mustPanic("conflict", func() { s.Page("/a/{y}", site.PageOptions{}) })
	// Both pages are named with the author's file and line.
	if strings.Count(msg, "read_test.go:") != 2 || !strings.Contains(msg, `"/a/{x}"`) || !strings.Contains(msg, `"/a/{y}"`) {
		t.Errorf("conflict panic %q does not name both pages where they were registered", msg)
	}
	mustPanic("method in pattern", func() { s.Page("GET /b", site.PageOptions{}) })
	sitetest.New(t, s).Get("/a/1")
	mustPanic("after serving", func() { s.Page("/c", site.PageOptions{}) })
}

var _ = httptest.NewRecorder
