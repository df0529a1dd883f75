// Package recipes is a small web application of the most common shape of
// Go web app: httprouter for routes, alice for middleware chains, scs
// sessions kept in the request context, nosurf CSRF tokens in every form,
// html/template, a MySQL/MariaDB database with its own users table, HTTPS
// only. People sign up, sign in, and write recipes.
//
// Everything but affordances.go is the application as it was before it
// took on Affordances; affordances.go is the whole of the adoption: with
// it, agents read the pages, sign in, write and read recipes through
// afford, the Go client and MCP, and get API tokens from the person.
package recipes

import (
	"database/sql"
	"embed"
	"html/template"
	"log/slog"
	"net/http"
	"time"

	"github.com/alexedwards/scs/v2"
)

//go:embed templates
var templateFS embed.FS

// App is the application: its database, sessions and templates.
type App struct {
	DB       *sql.DB
	Sessions *scs.SessionManager
	Logger   *slog.Logger
	// Head, when set, gives what goes in a page's <head>.
	Head  func(r *http.Request) template.HTML
	pages map[string]*template.Template
}

// New returns the application over a database that Migrate prepared.
func New(db *sql.DB, logger *slog.Logger) *App {
	sm := scs.New()
	sm.Lifetime = 12 * time.Hour
	sm.Cookie.Secure = true // HTTPS only
	app := &App{DB: db, Sessions: sm, Logger: logger, pages: map[string]*template.Template{}}
	for _, name := range []string{"home.html", "view.html", "create.html", "signup.html", "login.html"} {
		app.pages[name] = template.Must(template.ParseFS(templateFS, "templates/base.html", "templates/"+name))
	}
	return app
}
