package ginsite_test

import (
	"html/template"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/gin-gonic/gin"

	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site"
	"github.com/affordances-go/affordances/site/ginsite"
)

func init() { gin.SetMode(gin.TestMode) }

// engine is a gin app with a logging middleware, a middleware that puts
// the user in the gin.Context (as sessions do), the site, and routes of
// its own; logged records what the logger saw.
func engine(t *testing.T) (*gin.Engine, *[]string, *int) {
	var logged []string
	pins := 0
	csrf := func(c *gin.Context) { // the gin-csrf kind: a token set, then checked on POST
		c.Set("csrf", "tok-"+c.GetString("user"))
		if c.Request.Method == http.MethodPost && c.Request.PostFormValue("_csrf") != c.GetString("csrf") {
			c.AbortWithStatus(http.StatusForbidden)
		}
	}
	s := site.New(site.Options{Name: "Notes", Logger: slog.New(slog.DiscardHandler),
		Auth: site.AuthFunc(func(r *http.Request) (site.Caller, error) {
			if u := ginsite.Context(r).GetString("user"); u != "" {
				return site.Caller{ID: "s-" + u, Account: u, Mode: protocol.AuthCookie, SignedIn: true}, nil
			}
			return site.Caller{}, nil
		}),
		PersonMiddleware: ginsite.Person(csrf),
		FormFields: func(r *http.Request) map[string]string {
			return map[string]string{"_csrf": ginsite.Context(r).GetString("csrf")}
		},
	})
	view := template.Must(template.New("n").Funcs(site.Funcs()).Parse(`<head>{{affordancesLink .}}</head>{{actionForm . "pin"}}`))
	p := s.Page("/notes/{id}", site.PageOptions{View: view})
	site.Handle(p, site.Action{Name: "pin", Description: "Pin the note", Expose: protocol.ExposeSession},
		func(r *site.Request, in struct{}) (site.Done, error) {
			pins++
			return site.Done{Message: "Pinned."}, nil
		})
	s.Page("/about", site.PageOptions{})

	r := gin.New()
	r.Use(func(c *gin.Context) {
		c.Next()
		logged = append(logged, c.Request.URL.Path+" "+http.StatusText(c.Writer.Status()))
	})
	r.Use(gin.Recovery())
	r.Use(func(c *gin.Context) {
		if ck, err := c.Request.Cookie("user"); err == nil {
			c.Set("user", ck.Value)
		}
	})
	r.Use(ginsite.Middleware(s))
	r.GET("/about", func(c *gin.Context) {
		c.Data(200, "text/html; charset=utf-8", []byte("<head>"+string(ginsite.Link(c))+"</head>about"))
	})
	r.GET("/tag/:tag", func(c *gin.Context) {
		c.Data(200, "text/html; charset=utf-8", []byte("<head>"+string(ginsite.Link(c))+"</head>tag "+c.Param("tag")))
	})
	r.POST("/nothing", func(c *gin.Context) { c.Status(http.StatusNoContent) })
	r.GET("/panic", func(c *gin.Context) { panic("boom") })
	return r, &logged, &pins
}

func do(h http.Handler, method, path, body string, header ...string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(method, "http://notes.example"+path, strings.NewReader(body))
	for i := 0; i+1 < len(header); i += 2 {
		r.Header.Set(header[i], header[i+1])
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

// The site serves inside gin's chain: gin's logger sees the site's
// answers and the application's, the application's routes keep theirs
// (with the Link header only on a route that has a page), gin's 404
// stays gin's, and the site's authenticator reads the gin.Context.
func TestMiddleware_TheSiteRunsInsideGin(t *testing.T) {
	r, logged, pins := engine(t)
	if w := do(r, "GET", "/notes/1", "", "Accept", protocol.MediaType); w.Code != 200 || !strings.Contains(w.Body.String(), `"route":"/notes/[id]"`) {
		t.Fatalf("the graph: %d %s", w.Code, w.Body)
	}
	if w := do(r, "POST", "/notes/1", `{"action":"pin"}`, "Content-Type", protocol.MediaType, "Cookie", "user=ann", "Origin", "http://notes.example"); w.Code != 200 || *pins != 1 {
		t.Errorf("a call with the user gin's middleware found: %d %s", w.Code, w.Body)
	}
	if w := do(r, "POST", "/notes/1", `{"action":"pin"}`, "Content-Type", protocol.MediaType); w.Code != 401 {
		t.Errorf("an anonymous call: %d %s", w.Code, w.Body)
	}
	w := do(r, "GET", "/about", "")
	if w.Code != 200 || w.Body.String() != "<head>"+string(site.LinkTag)+"</head>about" || !strings.Contains(w.Header().Get("Link"), "affordances") || w.Header().Get("Vary") != "Accept" {
		t.Errorf("the app's page of a route with a graph: %d %v %s", w.Code, w.Header(), w.Body)
	}
	if w := do(r, "GET", "/tag/go", ""); w.Code != 200 || w.Body.String() != "<head></head>tag go" || w.Header().Get("Link") != "" {
		t.Errorf("the app's page of a route without a graph: %d %v %s", w.Code, w.Header(), w.Body)
	}
	if w := do(r, "POST", "/nothing", "", "Content-Type", "text/plain"); w.Code != http.StatusNoContent {
		t.Errorf("a status without a body: %d", w.Code)
	}
	if w := do(r, "GET", "/nowhere", ""); w.Code != 404 || w.Body.String() != "404 page not found" {
		t.Errorf("gin's 404: %d %q", w.Code, w.Body)
	}
	if w := do(r, "GET", "/panic", ""); w.Code != 500 {
		t.Errorf("gin's recovery: %d", w.Code)
	}
	want := "/notes/1 OK,/notes/1 OK,/notes/1 Unauthorized,/about OK,/tag/go OK,/nothing No Content,/nowhere Not Found,/panic Internal Server Error"
	if got := strings.Join(*logged, ","); got != want {
		t.Errorf("gin's logger saw\n%s\nwant\n%s", got, want)
	}
}

// A gin CSRF middleware given as Person guards the person's forms of
// the library and nothing else: the form carries its token (FormFields),
// a post without it is refused, an agent's call never meets it.
func TestPerson_GinMiddlewareGuardsThePersonsForms(t *testing.T) {
	r, _, pins := engine(t)
	page := do(r, "GET", "/notes/1", "", "Cookie", "user=ann")
	if page.Code != 200 || !strings.Contains(page.Body.String(), `name="_csrf" value="tok-ann"`) || !strings.Contains(page.Body.String(), string(site.LinkTag)) {
		t.Fatalf("the page the site renders: %d %s", page.Code, page.Body)
	}
	post := func(form url.Values) *httptest.ResponseRecorder {
		return do(r, "POST", "/notes/1", form.Encode(), "Content-Type", "application/x-www-form-urlencoded", "Cookie", "user=ann",
			"Origin", "http://notes.example", "Sec-Fetch-Site", "same-origin", "Sec-Fetch-Mode", "navigate", "Sec-Fetch-User", "?1")
	}
	if w := post(url.Values{"_action": {"pin"}}); w.Code != http.StatusForbidden || *pins != 0 {
		t.Errorf("a form without the token: %d %s, %d pins", w.Code, w.Body, *pins)
	}
	if w := post(url.Values{"_action": {"pin"}, "_csrf": {"tok-ann"}}); w.Code != http.StatusSeeOther || *pins != 1 {
		t.Errorf("the person's form: %d %s, %d pins", w.Code, w.Body, *pins)
	}
	if w := do(r, "POST", "/notes/1", `{"action":"pin"}`, "Content-Type", protocol.MediaType, "Cookie", "user=ann", "Origin", "http://notes.example"); w.Code != 200 || *pins != 2 {
		t.Errorf("an agent's call: %d %s", w.Code, w.Body)
	}
}
