package dials

import (
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"log/slog"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/mux"
)

// App is the application: its store, sessions and request counters.
type App struct {
	Store    *Store
	Sessions Sessions
	// Head is markup added to the <head> of the dials pages (a
	// verification tag, an alternate link).
	Head template.HTML

	mu       sync.Mutex
	requests map[string]int // by route, for /metrics
}

// New returns the application on a store, signing sessions with secret.
func New(store *Store, secret []byte) *App {
	return &App{Store: store, Sessions: Sessions{Secret: secret, Now: time.Now}, requests: map[string]int{}}
}

// Handler is the application's HTTP handler: the method override in
// front of the router, the middleware inside it.
func (a *App) Handler() http.Handler {
	r := mux.NewRouter()
	r.Use(a.recoverPanics, a.countRequests, a.signedInUser)
	r.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/dials", http.StatusFound) }).Methods("GET")
	r.HandleFunc("/login", a.loginPage).Methods("GET")
	r.HandleFunc("/login", a.login).Methods("POST")
	r.HandleFunc("/logout", a.logout).Methods("POST")
	r.HandleFunc("/metrics", a.metrics).Methods("GET")
	r.HandleFunc("/dials", a.listDials).Methods("GET")
	r.HandleFunc("/dials", a.createDial).Methods("POST")
	r.HandleFunc("/dials/{id:[0-9]+}", a.showDial).Methods("GET")
	r.HandleFunc("/dials/{id:[0-9]+}", a.updateDial).Methods("PATCH", "PUT")
	r.HandleFunc("/dials/{id:[0-9]+}", a.deleteDial).Methods("DELETE")
	return methodOverride(r)
}

// methodOverride lets an HTML form PATCH or DELETE with a _method field.
func methodOverride(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && strings.HasPrefix(r.Header.Get("Content-Type"), "application/x-www-form-urlencoded") {
			if m := strings.ToUpper(r.PostFormValue("_method")); m == "PATCH" || m == "DELETE" {
				r.Method = m
			}
		}
		next.ServeHTTP(w, r)
	})
}

func (a *App) recoverPanics(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if p := recover(); p != nil {
				slog.Error("dials: panic", "path", r.URL.Path, "panic", p)
				http.Error(w, "Internal Server Error", http.StatusInternalServerError)
			}
		}()
		next.ServeHTTP(w, r)
	})
}

func (a *App) countRequests(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tpl, _ := mux.CurrentRoute(r).GetPathTemplate()
		a.mu.Lock()
		a.requests[r.Method+" "+tpl]++
		a.mu.Unlock()
		next.ServeHTTP(w, r)
	})
}

// signedInUser puts the user in the request's context. A bad API key is
// refused here, in the application's own words.
func (a *App) signedInUser(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u, _, bad := a.Authenticate(r)
		switch {
		case bad:
			writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "invalid API key"})
			return
		case u.ID != 0:
			r = r.WithContext(WithUser(r.Context(), u))
		}
		next.ServeHTTP(w, r)
	})
}

// wantsJSON tells the REST API's clients from browsers.
func wantsJSON(r *http.Request) bool {
	return strings.Contains(r.Header.Get("Accept"), "application/json") ||
		strings.HasPrefix(r.Header.Get("Content-Type"), "application/json")
}

func (a *App) listDials(w http.ResponseWriter, r *http.Request) {
	ds, err := a.Store.Dials(r.Context())
	if a.failed(w, r, err) {
		return
	}
	if wantsJSON(r) {
		writeJSON(w, http.StatusOK, ds)
		return
	}
	u, _ := UserFrom(r.Context())
	render(w, "list", map[string]any{"User": u, "Dials": ds, "Flash": takeFlash(w, r), "Head": a.Head})
}

func (a *App) showDial(w http.ResponseWriter, r *http.Request) {
	d, err := a.Store.Dial(r.Context(), pathID(r))
	if a.failed(w, r, err) {
		return
	}
	if wantsJSON(r) {
		writeJSON(w, http.StatusOK, d)
		return
	}
	render(w, "show", map[string]any{"Dial": d, "Flash": takeFlash(w, r), "Head": a.Head})
}

// dialInput is a create or update, from JSON or from a form.
type dialInput struct {
	Name  *string `json:"name"`
	Value *int    `json:"value"`
}

func readInput(r *http.Request) (dialInput, error) {
	var in dialInput
	if strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
		return in, json.NewDecoder(http.MaxBytesReader(nil, r.Body, 1<<16)).Decode(&in)
	}
	if err := r.ParseForm(); err != nil {
		return in, err
	}
	if _, ok := r.PostForm["name"]; ok {
		n := r.PostFormValue("name")
		in.Name = &n
	}
	if v := r.PostFormValue("value"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			return in, ErrInvalid
		}
		in.Value = &n
	}
	return in, nil
}

func (a *App) createDial(w http.ResponseWriter, r *http.Request) {
	in, err := readInput(r)
	if err != nil || in.Name == nil {
		a.failed(w, r, ErrInvalid)
		return
	}
	d, err := a.Store.CreateDial(r.Context(), *in.Name)
	if a.failed(w, r, err) {
		return
	}
	if wantsJSON(r) {
		writeJSON(w, http.StatusCreated, d)
		return
	}
	setFlash(w, "Created "+d.Name+".")
	http.Redirect(w, r, "/dials", http.StatusSeeOther)
}

func (a *App) updateDial(w http.ResponseWriter, r *http.Request) {
	in, err := readInput(r)
	if err != nil {
		a.failed(w, r, ErrInvalid)
		return
	}
	d, err := a.Store.UpdateDial(r.Context(), pathID(r), in.Name, in.Value)
	if a.failed(w, r, err) {
		return
	}
	if wantsJSON(r) {
		writeJSON(w, http.StatusOK, d)
		return
	}
	setFlash(w, "Saved "+d.Name+".")
	http.Redirect(w, r, fmt.Sprintf("/dials/%d", d.ID), http.StatusSeeOther)
}

func (a *App) deleteDial(w http.ResponseWriter, r *http.Request) {
	if a.failed(w, r, a.Store.DeleteDial(r.Context(), pathID(r))) {
		return
	}
	if wantsJSON(r) || r.Method == http.MethodDelete && r.Header.Get("Content-Type") == "" {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	setFlash(w, "Deleted.")
	http.Redirect(w, r, "/dials", http.StatusSeeOther)
}

// failed answers a service's error: JSON to the API, a page or a
// redirect to the sign-in page to a browser.
func (a *App) failed(w http.ResponseWriter, r *http.Request, err error) bool {
	if err == nil {
		return false
	}
	status := http.StatusInternalServerError
	switch {
	case errors.Is(err, ErrForbidden):
		status = http.StatusUnauthorized
	case errors.Is(err, ErrNotFound):
		status = http.StatusNotFound
	case errors.Is(err, ErrInvalid):
		status = http.StatusBadRequest
	}
	switch {
	case wantsJSON(r):
		writeJSON(w, status, map[string]string{"error": err.Error()})
	case status == http.StatusUnauthorized:
		http.Redirect(w, r, "/login", http.StatusSeeOther)
	default:
		http.Error(w, err.Error(), status)
	}
	return true
}

func (a *App) loginPage(w http.ResponseWriter, r *http.Request) {
	render(w, "login", map[string]any{"Flash": takeFlash(w, r)})
}

func (a *App) login(w http.ResponseWriter, r *http.Request) {
	u, ok := a.Store.SignIn(r.PostFormValue("email"), r.PostFormValue("password"))
	if !ok {
		setFlash(w, "Wrong email or password.")
		http.Redirect(w, r, "/login", http.StatusSeeOther)
		return
	}
	http.SetCookie(w, a.Sessions.Cookie(u.ID))
	http.Redirect(w, r, "/dials", http.StatusSeeOther)
}

func (a *App) logout(w http.ResponseWriter, r *http.Request) {
	http.SetCookie(w, &http.Cookie{Name: SessionCookie, Path: "/", MaxAge: -1})
	http.Redirect(w, r, "/login", http.StatusSeeOther)
}

func (a *App) metrics(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	defer a.mu.Unlock()
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	for _, k := range slices.Sorted(maps.Keys(a.requests)) {
		fmt.Fprintf(w, "requests{route=%q} %d\n", k, a.requests[k])
	}
}

func pathID(r *http.Request) int {
	n, _ := strconv.Atoi(mux.Vars(r)["id"])
	return n
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

const flashCookie = "dials_flash"

func setFlash(w http.ResponseWriter, msg string) {
	http.SetCookie(w, &http.Cookie{Name: flashCookie, Value: strings.ReplaceAll(msg, " ", "_"), Path: "/"})
}

func takeFlash(w http.ResponseWriter, r *http.Request) string {
	c, err := r.Cookie(flashCookie)
	if err != nil {
		return ""
	}
	http.SetCookie(w, &http.Cookie{Name: flashCookie, Path: "/", MaxAge: -1})
	return strings.ReplaceAll(c.Value, "_", " ")
}

var pages = template.Must(template.New("").Parse(`
{{define "head"}}<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Dials</title>{{.Head}}</head><body>{{with .Flash}}<p class="flash">{{.}}</p>{{end}}{{end}}
{{define "list"}}{{template "head" .}}<h1>{{.User.Name}}'s dials</h1>
<ul>{{range .Dials}}<li><a href="/dials/{{.ID}}">{{.Name}}</a>: {{.Value}}</li>{{end}}</ul>
<form method="post" action="/dials"><label>Name <input name="name" required maxlength="40"></label><button>Create</button></form>
<form method="post" action="/logout"><button>Sign out</button></form></body></html>{{end}}
{{define "show"}}{{template "head" .}}<h1>{{.Dial.Name}}</h1><p>Value: {{.Dial.Value}}</p>
<form method="post"><input type="hidden" name="_method" value="PATCH"><label>Value <input name="value" type="number" min="0" max="100" value="{{.Dial.Value}}"></label><button>Turn</button></form>
<form method="post"><input type="hidden" name="_method" value="DELETE"><button>Delete</button></form>
<p><a href="/dials">All dials</a></p></body></html>{{end}}
{{define "login"}}{{template "head" .}}<h1>Sign in</h1><form method="post" action="/login"><input name="email" type="email"><input name="password" type="password"><button>Sign in</button></form></body></html>{{end}}
`))

func render(w http.ResponseWriter, name string, data any) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if err := pages.ExecuteTemplate(w, name, data); err != nil {
		slog.Error("dials: rendering", "page", name, "err", err)
	}
}
