package echonotes

// The whole adoption: the notes as graphs, sign-in and notes as actions,
// inside the echo server (echosite), with the app's sessions and CSRF.

import (
	"net/http"
	"strconv"

	"github.com/gorilla/sessions"
	"github.com/labstack/echo/v5"
	"github.com/labstack/echo/v5/middleware"

	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site"
	"github.com/affordances-go/affordances/site/echosite"
)

var notesKey, noteKey = site.NewKey[[]Note]("notes"), site.NewKey[Note]("note")

// NoteInput is a note as an agent writes it.
type NoteInput struct {
	Title string `json:"title" minLength:"1" maxLength:"200"`
	Body  string `json:"body" maxLength:"20000"`
}

// SignInInput is the sign-in form's input.
type SignInInput struct {
	Email    string `json:"email" format:"email" maxLength:"255"`
	Password string `json:"password" minLength:"1" maxLength:"200"`
}

// WithAgents returns the app's echo server with Affordances inside.
func (app *App) WithAgents() *echo.Echo {
	s := site.New(site.Options{
		Name: "Notes",
		Auth: site.AuthFunc(func(r *http.Request) (site.Caller, error) {
			if id := app.UserID(echosite.Context(r)); id != 0 { // the app's session
				return site.Caller{ID: "user:" + strconv.Itoa(id), Account: strconv.Itoa(id), Mode: protocol.AuthCookie, SignedIn: true, User: id}, nil
			}
			return site.Caller{}, nil
		}),
		// echo's CSRF middleware guards the person's forms of the library.
		PersonMiddleware: echosite.Person(app.CSRF),
		FormFields: func(r *http.Request) map[string]string {
			tok, _ := echosite.Context(r).Get(middleware.DefaultCSRFConfig.ContextKey).(string)
			return map[string]string{"_csrf": tok}
		},
	})
	user := func(r *site.Request) int { id, _ := r.Caller.User.(int); return id }
	home := s.Page("/", site.PageOptions{Description: "Your notes", Entities: []site.EntityLoader{
		site.Entity(notesKey, func(r *site.Request) ([]Note, error) { return app.Notes(user(r)), nil })}})
	site.Handle(home, site.Action{Name: "addNote", Description: "Write a new note", Expose: protocol.ExposeSession},
		func(r *site.Request, in NoteInput) (site.Result[Note], error) {
			n := app.SaveNote(Note{Owner: user(r), Title: in.Title, Body: in.Body})
			return site.Result[Note]{Output: n, Message: "Note added.", Redirect: "/notes/" + strconv.Itoa(n.ID)}, nil
		})
	findNote := func(r *site.Request) (Note, error) {
		if n, ok := app.Note(user(r), r.PathValue("id")); ok {
			return n, nil
		}
		return Note{}, site.ErrNotFound
	}
	note := s.Page("/notes/{id}", site.PageOptions{Description: "One of your notes",
		Exists:   func(r *site.Request) error { _, err := findNote(r); return err }, // yours, and there
		Entities: []site.EntityLoader{site.Entity(noteKey, findNote)}})
	site.Handle(note, site.Action{Name: "editNote", Description: "Change the note's title and body",
		Expose: protocol.ExposeSession, Effects: site.Effects(noteKey)},
		func(r *site.Request, in NoteInput) (site.Done, error) {
			n, err := findNote(r)
			if err != nil {
				return site.Done{}, err
			}
			n.Title, n.Body = in.Title, in.Body
			app.SaveNote(n)
			return site.Done{Message: "Note saved."}, nil
		})
	login := s.Page("/login", site.PageOptions{Description: "Sign in"})
	site.Handle(login, site.Action{Name: "signIn", Description: "Sign in with an email and a password",
		Expose: protocol.ExposePublic, NeedsCookies: true, LimitByAddress: true},
		func(r *site.Request, in SignInInput) (site.Done, error) {
			id, ok := app.SignIn(in.Email, in.Password)
			if !ok {
				return site.Done{}, site.Unavailable("Email or password is incorrect.")
			}
			sess := echosite.Context(r.Request).Get("session").(*sessions.Session)
			sess.Values["user"] = id // its cookie goes out with the answer only if signIn succeeds
			return site.Done{Message: "Signed in.", Redirect: "/"}, sess.Save(r.Request, r.ResponseWriter())
		})
	app.Head = echosite.Link // the link element only on routes with a page
	return app.Server(echosite.Middleware(s))
}
