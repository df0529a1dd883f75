// Package ginsite runs an Affordances site inside a gin engine, as one
// middleware of its chain: gin's logger, recovery and the application's
// middleware before it see the site's requests too, the site's
// authenticator reaches what they put in the gin.Context (a
// gin-contrib/sessions session, a user), and gin middleware such as a
// CSRF check can guard the person's forms alone.
//
//	r := gin.Default()                      // Logger, Recovery
//	r.Use(sessions.Sessions("blog", store)) // the application's own
//	r.Use(ginsite.Middleware(s))            // the site's pages, calls and doors
//	r.GET("/tag/:tag", tagPage)             // the application's routes
//	r.Run(addr)
//
// It is its own module, so that the library does not depend on gin.
package ginsite

import (
	"context"
	"html/template"
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/affordances-go/affordances/site"
)

// ctxKey carries the gin.Context in the request the site serves.
type ctxKey struct{}

// Middleware serves, in gin's chain, every request the site answers
// itself (a page's graph or its site-rendered HTML, an agent's call, a
// form of the library, the site index, the doors extensions mounted)
// and aborts the chain there; every other request goes on to the
// application's routes (c.Next), with the headers Site.Wrap gives the
// HTML of a page that has a graph (Vary: Accept, the Link header).
// Put it after gin's Logger and Recovery and the middleware the site's
// authenticator needs (sessions), and before the routes: gin runs a
// route's handlers only after the engine's middleware, so the site sees
// a page's URL before any route of the application.
//
// Keep a CSRF middleware that refuses POSTs without its token out of the
// engine's chain, or after this one: agents' calls carry no CSRF token.
// Give it to the site as Options.PersonMiddleware (see [Person]) so that
// it guards the person's forms.
func Middleware(s *site.Site) gin.HandlerFunc {
	app := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c := Context(r)
		c.Set(linkKey, s.Link(r))
		orig := c.Writer
		orig.WriteHeader(c.GetInt(presetKey)) // gin's 404 where no route matched
		x := &writer{ResponseWriter: orig, w: w}
		c.Request, c.Writer = r, x
		c.Next()
		x.WriteHeaderNow() // a status the handlers set and wrote no body after
		c.Writer = orig
	})
	h := s.Wrap(app)
	return func(c *gin.Context) {
		// Where gin found no route it has set 404 already: the site
		// answers with its own status, the application's chain with gin's.
		c.Set(presetKey, c.Writer.Status())
		c.Writer.WriteHeader(http.StatusOK)
		c.Request = c.Request.WithContext(context.WithValue(c.Request.Context(), ctxKey{}, c))
		h.ServeHTTP(c.Writer, c.Request)
		c.Abort() // served by the site, or the rest of the chain ran inside it
	}
}

// presetKey keeps, in the gin.Context, the status gin had set before the
// site saw the request.
const presetKey = "github.com/affordances-go/affordances/site/ginsite.preset"

// Context returns the gin.Context of a request the site serves through
// [Middleware], for the site's authenticator, loaders and actions to read
// what gin's middleware put there: sessions.Default(ginsite.Context(r)),
// c.Get("user"). Nil for a request that did not come through Middleware.
func Context(r *http.Request) *gin.Context {
	c, _ := r.Context().Value(ctxKey{}).(*gin.Context)
	return c
}

// writer is the gin.ResponseWriter of the application's handlers for a
// request the site passed on: what they write goes through the writer
// Site.Wrap gave (which adds the headers of a page with a graph to a
// successful HTML answer) into gin's own. Like gin's, it keeps a status
// until the body or WriteHeaderNow sends it.
type writer struct {
	gin.ResponseWriter // gin's: Status, Size, Written, Hijack, Pusher
	w                  http.ResponseWriter
	status             int // a status written and not sent yet
}

func (x *writer) Header() http.Header { return x.w.Header() }

func (x *writer) WriteHeader(code int) {
	if code > 0 && !x.Written() {
		x.status = code
	}
}

func (x *writer) WriteHeaderNow() {
	if x.status != 0 && !x.Written() {
		x.w.WriteHeader(x.status)
	}
	x.status = 0
}

func (x *writer) Write(b []byte) (int, error) {
	x.WriteHeaderNow()
	return x.w.Write(b)
}

func (x *writer) WriteString(s string) (int, error) { return x.Write([]byte(s)) }

func (x *writer) Status() int {
	if x.status != 0 {
		return x.status
	}
	return x.ResponseWriter.Status()
}

func (x *writer) Flush() {
	x.WriteHeaderNow()
	_ = http.NewResponseController(x.w).Flush()
}

// Person turns gin middleware (a CSRF check of the gin-csrf kind, which
// keeps its secret in the session and sets its token in the context)
// into the site's Options.PersonMiddleware, so that it guards the
// person's HTML door alone: the pages the site renders and the library's
// form posts, never an agent's call. The middleware runs in a gin chain
// of its own that starts with what the engine's middleware put in the
// request's gin.Context (the session) and gives back what it set (the
// token, for Options.FormFields through [Context]); a middleware that
// aborts answers the person, and the site does nothing more.
func Person(mws ...gin.HandlerFunc) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		e := gin.New()
		e.RedirectTrailingSlash, e.RedirectFixedPath = false, false
		outer := func(c *gin.Context) *gin.Context { return Context(c.Request) }
		e.Use(func(c *gin.Context) {
			if o := outer(c); o != nil {
				for k, v := range o.Keys {
					c.Set(k, v)
				}
			}
		})
		e.Use(mws...)
		e.Any("/*path", func(c *gin.Context) {
			if o := outer(c); o != nil {
				for k, v := range c.Keys {
					o.Set(k, v)
				}
			}
			next.ServeHTTP(c.Writer, c.Request)
		})
		return e
	}
}

// linkKey keeps, in the gin.Context of a request the site passed on, the
// link element of its route (Site.Link).
const linkKey = "github.com/affordances-go/affordances/site/ginsite.link"

// Link returns the <link rel="affordances"> element for the <head> of a
// page the application renders, when the site has a page for its route
// (a graph to announce), and "" otherwise (a tag page, the not-found
// page): put it in the data of the layout the routes share.
func Link(c *gin.Context) template.HTML {
	l, _ := c.Get(linkKey)
	h, _ := l.(template.HTML)
	return h
}
