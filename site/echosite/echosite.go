// Package echosite runs an Affordances site inside an echo v5 server, as
// one middleware of its chain: echo's logger, recover and the
// application's middleware before it see the site's requests too, the
// site's authenticator reaches the echo.Context (an echo-contrib session,
// a user), and echo's CSRF middleware guards the person's forms alone.
//
//	e := echo.New()
//	e.Use(middleware.Logger(), middleware.Recover())
//	e.Use(sessions)                      // the application's own
//	e.Use(echosite.Middleware(s))        // the site's pages, calls and doors
//	e.Use(middleware.CSRF())             // for the application's routes
//	e.GET("/tag/:tag", tagPage)
//	e.Start(addr)
//
// It is its own module, so that the library does not depend on echo.
package echosite

import (
	"context"
	"html/template"
	"net/http"

	"github.com/labstack/echo/v5"

	"github.com/affordances-go/affordances/site"
)

// ctxKey carries the call's state in the request the site serves.
type ctxKey struct{}

// call is a request on its way through the site: its echo.Context, the
// rest of echo's chain, and what that chain returned.
type call struct {
	c    *echo.Context
	next echo.HandlerFunc
	err  error
}

// Middleware serves, in echo's chain, every request the site answers
// itself (a page's graph or its site-rendered HTML, an agent's call, a
// form of the library, the site index, the doors extensions mounted)
// and ends the chain there; every other request goes on to the rest of
// the chain and the application's routes, with the headers Site.Wrap
// gives the HTML of a page that has a graph (Vary: Accept, the Link
// header). Put it after echo's Logger and Recover and the middleware
// the site's authenticator needs (sessions), and before a CSRF
// middleware: agents' calls carry no CSRF token, and the site answers
// them before it runs (give it to the site as Options.PersonMiddleware
// with [Person] to guard the person's forms too).
func Middleware(s *site.Site) echo.MiddlewareFunc {
	h := s.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		k := r.Context().Value(ctxKey{}).(*call)
		k.c.Set(linkKey, s.Link(r))
		orig := k.c.Response()
		k.c.SetRequest(r)
		k.c.SetResponse(echo.NewResponse(w, k.c.Logger())) // through Wrap's writer into echo's
		k.err = k.next(k.c)
		k.c.SetResponse(orig)
	}))
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c *echo.Context) error {
			k := &call{c: c, next: next}
			c.SetRequest(c.Request().WithContext(context.WithValue(c.Request().Context(), ctxKey{}, k)))
			h.ServeHTTP(c.Response(), c.Request())
			return k.err
		}
	}
}

// Context returns the echo.Context of a request the site serves through
// [Middleware], for the site's authenticator, loaders and actions to read
// what echo's middleware put there (a session, c.Get("user")). Nil for a
// request that did not come through Middleware.
func Context(r *http.Request) *echo.Context {
	if k, ok := r.Context().Value(ctxKey{}).(*call); ok {
		return k.c
	}
	return nil
}

// Person turns echo middleware (middleware.CSRF, which sets its token in
// the context) into the site's Options.PersonMiddleware, so that it
// guards the person's HTML door alone: the pages the site renders and
// the library's form posts, never an agent's call. It runs on the
// request's echo.Context, so the token it sets is there for
// Options.FormFields ([Context]); an error it returns (403 for a bad
// token) is answered as echo's error handler answers it.
func Person(mws ...echo.MiddlewareFunc) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			c := Context(r)
			if c == nil {
				next.ServeHTTP(w, r)
				return
			}
			orig, origReq := c.Response(), c.Request()
			h := func(c *echo.Context) error { next.ServeHTTP(c.Response(), c.Request()); return nil }
			for i := len(mws) - 1; i >= 0; i-- {
				h = mws[i](h)
			}
			c.SetRequest(r)
			c.SetResponse(echo.NewResponse(w, c.Logger()))
			if err := h(c); err != nil {
				c.Echo().HTTPErrorHandler(c, err)
			}
			c.SetResponse(orig)
			c.SetRequest(origReq)
		})
	}
}

// linkKey keeps, in the echo.Context of a request the site passed on,
// the link element of its route (Site.Link).
const linkKey = "github.com/affordances-go/affordances/site/echosite.link"

// Link returns the <link rel="affordances"> element for the <head> of a
// page the application renders, when the site has a page for its route,
// and "" otherwise (a tag page, the not-found page): put it in the data
// of the layout the routes share.
func Link(c *echo.Context) template.HTML {
	h, _ := c.Get(linkKey).(template.HTML)
	return h
}
