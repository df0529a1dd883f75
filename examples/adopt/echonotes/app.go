// Package echonotes is a small echo notes app as its authors wrote it
// before Affordances (echo v5 with gorilla/sessions on a cookie store,
// echo's CSRF middleware, html/template), and its adoption in
// affordances.go, the only file that knows the library. app.go changed in
// two lines: the server takes the site's middleware, and the layout's
// data its link element.
package echonotes

import (
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"html/template"
	"io"
	"net/http"
	"strconv"
	"sync"

	"github.com/gorilla/sessions"
	"github.com/labstack/echo/v5"
	"github.com/labstack/echo/v5/middleware"
)

// Note is one note of one user.
type Note struct {
	ID    int    `json:"id"`
	Owner int    `json:"-"`
	Title string `json:"title"`
	Body  string `json:"body"`
}

// App is the notes app: its users and notes in memory.
type App struct {
	mu     sync.Mutex
	users  map[string]int // email → id
	hashes map[int][32]byte
	notes  []Note
	store  sessions.Store
	// CSRF is echo's CSRF middleware, as the app configures it.
	CSRF echo.MiddlewareFunc
	// Head adds to the layout's <head> (empty before Affordances).
	Head func(c *echo.Context) template.HTML
	// LogTo is where echo's logger writes.
	LogTo io.Writer
}

// New returns the app with two users (ann@example.com / ann, bob@example.com / bob).
func New(sessionKey []byte) *App {
	app := &App{users: map[string]int{"ann@example.com": 1, "bob@example.com": 2},
		hashes: map[int][32]byte{1: sha256.Sum256([]byte("ann")), 2: sha256.Sum256([]byte("bob"))},
		notes:  []Note{{ID: 1, Owner: 1, Title: "Groceries", Body: "Milk, eggs."}},
		store:  sessions.NewCookieStore(sessionKey), LogTo: io.Discard,
		CSRF: middleware.CSRFWithConfig(middleware.CSRFConfig{TokenLookup: "form:_csrf", CookieHTTPOnly: true, CookieSameSite: http.SameSiteLaxMode}),
		Head: func(*echo.Context) template.HTML { return "" }}
	return app
}

var pages = template.Must(template.New("").Parse(`
{{define "head"}}<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Notes</title>{{.Head}}</head><body>{{end}}
{{define "home"}}{{template "head" .}}<h1>Notes</h1><ul>{{range .Notes}}<li><a href="/notes/{{.ID}}">{{.Title}}</a></li>{{end}}</ul>
<form method="post" action="/notes"><input type="hidden" name="_csrf" value="{{.CSRF}}"><input name="title"><textarea name="body"></textarea><button>Add</button></form></body></html>{{end}}
{{define "note"}}{{template "head" .}}<h1>{{.Note.Title}}</h1><p>{{.Note.Body}}</p></body></html>{{end}}
{{define "login"}}{{template "head" .}}<form method="post" action="/login"><input type="hidden" name="_csrf" value="{{.CSRF}}">
<input name="email"><input name="password" type="password"><button>Sign in</button></form></body></html>{{end}}`))

// Server is the app's echo server. mw runs after the session middleware
// and before echo's CSRF (Affordances' middleware goes there).
func (app *App) Server(mw ...echo.MiddlewareFunc) *echo.Echo {
	e := echo.New()
	e.Use(middleware.RequestLoggerWithConfig(middleware.RequestLoggerConfig{LogURI: true, LogStatus: true, HandleError: true,
		LogValuesFunc: func(c *echo.Context, v middleware.RequestLoggerValues) error {
			_, err := fmt.Fprintf(app.LogTo, "{\"uri\":%q,\"status\":%d}\n", v.URI, v.Status)
			return err
		}}), middleware.Recover())
	e.Use(app.sessions)
	e.Use(mw...)
	e.Use(app.CSRF)
	e.GET("/", app.home)
	e.GET("/login", func(c *echo.Context) error { return app.render(c, "login", map[string]any{}) })
	e.POST("/login", app.login)
	e.POST("/notes", app.addNote)
	e.GET("/notes/:id", app.showNote)
	return e
}

func (app *App) render(c *echo.Context, name string, data map[string]any) error {
	data["Head"], data["CSRF"] = app.Head(c), c.Get(middleware.DefaultCSRFConfig.ContextKey)
	c.Response().Header().Set("Content-Type", "text/html; charset=utf-8")
	return pages.ExecuteTemplate(c.Response(), name, data)
}

// sessions loads the request's session into the context, as "session".
func (app *App) sessions(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c *echo.Context) error {
		s, _ := app.store.Get(c.Request(), "session") // a bad cookie gives a new session
		c.Set("session", s)
		return next(c)
	}
}

// UserID is the signed-in user of the session, 0 for none.
func (app *App) UserID(c *echo.Context) int {
	s, ok := c.Get("session").(*sessions.Session)
	if !ok {
		return 0
	}
	id, _ := s.Values["user"].(int)
	return id
}

// SignIn checks an email and password.
func (app *App) SignIn(email, password string) (int, bool) {
	app.mu.Lock()
	defer app.mu.Unlock()
	id, ok := app.users[email]
	h, want := sha256.Sum256([]byte(password)), app.hashes[id]
	return id, ok && subtle.ConstantTimeCompare(h[:], want[:]) == 1
}

// StartSession signs the user in on this browser.
func (app *App) StartSession(c *echo.Context, id int) error {
	s := c.Get("session").(*sessions.Session)
	s.Values["user"] = id
	return s.Save(c.Request(), c.Response())
}

func (app *App) login(c *echo.Context) error {
	id, ok := app.SignIn(c.FormValue("email"), c.FormValue("password"))
	if !ok {
		return echo.NewHTTPError(http.StatusUnauthorized, "Email or password is incorrect.")
	}
	if err := app.StartSession(c, id); err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, "/")
}

// Notes are the user's notes.
func (app *App) Notes(user int) []Note {
	app.mu.Lock()
	defer app.mu.Unlock()
	var out []Note
	for _, n := range app.notes {
		if n.Owner == user {
			out = append(out, n)
		}
	}
	return out
}

// Note is one note of the user's.
func (app *App) Note(user int, idText string) (Note, bool) {
	id, err := strconv.Atoi(idText)
	for _, n := range app.Notes(user) {
		if err == nil && n.ID == id {
			return n, true
		}
	}
	return Note{}, false
}

// SaveNote adds a note (ID 0) or changes one; it returns the note saved.
func (app *App) SaveNote(n Note) Note {
	app.mu.Lock()
	defer app.mu.Unlock()
	for i := range app.notes {
		if app.notes[i].ID == n.ID && n.ID != 0 {
			app.notes[i] = n
			return n
		}
	}
	n.ID = len(app.notes) + 1
	app.notes = append(app.notes, n)
	return n
}

func (app *App) home(c *echo.Context) error {
	return app.render(c, "home", map[string]any{"Notes": app.Notes(app.UserID(c))})
}

func (app *App) addNote(c *echo.Context) error {
	user := app.UserID(c)
	if user == 0 {
		return echo.ErrUnauthorized
	}
	n := app.SaveNote(Note{Owner: user, Title: c.FormValue("title"), Body: c.FormValue("body")})
	return c.Redirect(http.StatusSeeOther, "/notes/"+strconv.Itoa(n.ID))
}

func (app *App) showNote(c *echo.Context) error {
	n, ok := app.Note(app.UserID(c), c.Param("id"))
	if !ok {
		return echo.ErrNotFound
	}
	return app.render(c, "note", map[string]any{"Note": n})
}
