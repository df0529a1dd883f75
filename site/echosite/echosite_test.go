package echosite_test

import (
	"html/template"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/labstack/echo/v5"
	"github.com/labstack/echo/v5/middleware"

	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site"
	"github.com/affordances-go/affordances/site/echosite"
)

// server is an echo app with a logging middleware, Recover, a middleware
// that puts the user in the echo.Context (as sessions do), the site,
// echo's CSRF middleware and routes of its own; logged records what the
// logger saw.
func server(t *testing.T) (*echo.Echo, *[]string, *int) {
	var logged []string
	pins := 0
	csrf := middleware.CSRFWithConfig(middleware.CSRFConfig{TokenLookup: "form:_csrf"})
	s := site.New(site.Options{Name: "Notes", Logger: slog.New(slog.DiscardHandler),
		Auth: site.AuthFunc(func(r *http.Request) (site.Caller, error) {
			if u, _ := echosite.Context(r).Get("user").(string); u != "" {
				return site.Caller{ID: "s-" + u, Account: u, Mode: protocol.AuthCookie, SignedIn: true}, nil
			}
			return site.Caller{}, nil
		}),
		PersonMiddleware: echosite.Person(csrf),
		FormFields: func(r *http.Request) map[string]string {
			tok, _ := echosite.Context(r).Get(middleware.DefaultCSRFConfig.ContextKey).(string)
			return map[string]string{"_csrf": tok}
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

	e := echo.New()
	e.Logger = slog.New(slog.DiscardHandler)
	e.Use(func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c *echo.Context) error {
			err := next(c)
			if err != nil {
				c.Echo().HTTPErrorHandler(c, err)
			}
			res, _ := echo.UnwrapResponse(c.Response())
			logged = append(logged, c.Request().URL.Path+" "+http.StatusText(res.Status))
			return nil
		}
	})
	e.Use(middleware.Recover())
	e.Use(func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c *echo.Context) error {
			if ck, err := c.Cookie("user"); err == nil {
				c.Set("user", ck.Value)
			}
			return next(c)
		}
	})
	e.Use(echosite.Middleware(s))
	e.Use(csrf)
	e.GET("/about", func(c *echo.Context) error { return c.HTML(200, "<head>"+string(echosite.Link(c))+"</head>about") })
	e.GET("/tag/:tag", func(c *echo.Context) error {
		return c.HTML(200, "<head>"+string(echosite.Link(c))+"</head>tag "+c.Param("tag"))
	})
	e.POST("/app/note", func(c *echo.Context) error { return c.String(200, "saved") })
	e.GET("/panic", func(c *echo.Context) error { panic("boom") })
	return e, &logged, &pins
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

// The site serves inside echo's chain: the logger sees the site's answers
// and the application's, the application's routes keep theirs (the Link
// header only on a route with a page), echo's CSRF keeps guarding the
// application's form posts and never meets an agent's call, echo's 404
// stays echo's.
func TestMiddleware_TheSiteRunsInsideEcho(t *testing.T) {
	e, logged, pins := server(t)
	if w := do(e, "GET", "/notes/1", "", "Accept", protocol.MediaType); w.Code != 200 || !strings.Contains(w.Body.String(), `"route":"/notes/[id]"`) {
		t.Fatalf("the graph: %d %s", w.Code, w.Body)
	}
	if w := do(e, "POST", "/notes/1", `{"action":"pin"}`, "Content-Type", protocol.MediaType, "Cookie", "user=ann", "Origin", "http://notes.example"); w.Code != 200 || *pins != 1 {
		t.Errorf("a call with the user echo's middleware found: %d %s", w.Code, w.Body)
	}
	w := do(e, "GET", "/about", "")
	if w.Code != 200 || w.Body.String() != "<head>"+string(site.LinkTag)+"</head>about" || !strings.Contains(w.Header().Get("Link"), "affordances") {
		t.Errorf("the app's page of a route with a graph: %d %v %s", w.Code, w.Header(), w.Body)
	}
	if w := do(e, "GET", "/tag/go", ""); w.Code != 200 || w.Body.String() != "<head></head>tag go" || w.Header().Get("Link") != "" {
		t.Errorf("the app's page of a route without a graph: %d %v %s", w.Code, w.Header(), w.Body)
	}
	if w := do(e, "POST", "/app/note", "title=x", "Content-Type", "application/x-www-form-urlencoded", "Cookie", "user=ann"); w.Code != 400 {
		t.Errorf("the app's form without echo's CSRF token: %d %s", w.Code, w.Body)
	}
	if w := do(e, "GET", "/nowhere", ""); w.Code != 404 {
		t.Errorf("echo's 404: %d %q", w.Code, w.Body)
	}
	if w := do(e, "GET", "/panic", ""); w.Code != 500 {
		t.Errorf("echo's recover: %d", w.Code)
	}
	want := "/notes/1 OK,/notes/1 OK,/about OK,/tag/go OK,/app/note Bad Request,/nowhere Not Found,/panic Internal Server Error"
	if got := strings.Join(*logged, ","); got != want {
		t.Errorf("echo's logger saw\n%s\nwant\n%s", got, want)
	}
}

// echo's CSRF middleware given as Person guards the person's forms of the
// library: the form carries its token (FormFields), a post without it is
// refused, an agent's call never meets it.
func TestPerson_EchoCSRFGuardsThePersonsForms(t *testing.T) {
	e, _, pins := server(t)
	page := do(e, "GET", "/notes/1", "", "Cookie", "user=ann")
	tok := regexp.MustCompile(`name="_csrf" value="([^"]+)"`).FindStringSubmatch(page.Body.String())
	if page.Code != 200 || tok == nil || tok[1] == "" {
		t.Fatalf("the page the site renders: %d %s", page.Code, page.Body)
	}
	csrfCookie := page.Result().Cookies()[0]
	post := func(form url.Values) *httptest.ResponseRecorder {
		return do(e, "POST", "/notes/1", form.Encode(), "Content-Type", "application/x-www-form-urlencoded",
			"Cookie", "user=ann; "+csrfCookie.Name+"="+csrfCookie.Value, "Origin", "http://notes.example")
	}
	if w := post(url.Values{"_action": {"pin"}}); w.Code != http.StatusBadRequest || *pins != 0 { // echo's answer
		t.Errorf("a form without the token: %d %s, %d pins", w.Code, w.Body, *pins)
	}
	if w := post(url.Values{"_action": {"pin"}, "_csrf": {"forged"}}); w.Code != http.StatusForbidden || *pins != 0 {
		t.Errorf("a form with a forged token: %d %s, %d pins", w.Code, w.Body, *pins)
	}
	if w := post(url.Values{"_action": {"pin"}, "_csrf": {tok[1]}}); w.Code != http.StatusSeeOther || *pins != 1 {
		t.Errorf("the person's form: %d %s, %d pins", w.Code, w.Body, *pins)
	}
	if w := do(e, "POST", "/notes/1", `{"action":"pin"}`, "Content-Type", protocol.MediaType, "Cookie", "user=ann", "Origin", "http://notes.example"); w.Code != 200 || *pins != 2 {
		t.Errorf("an agent's call: %d %s", w.Code, w.Body)
	}
}
