package site

import (
	"bytes"
	"errors"
	"html/template"
	"net/http"
	"strconv"

	"github.com/affordances-go/affordances/protocol"
)

// View is the data a page's template is executed with: the state the
// loader returned, and what the template needs to show the page's actions.
type View struct {
	*State
	// Request is the request being answered.
	Request *Request
	// Route is the page's route in bracket form.
	Route string

	page    *Page
	actions []protocol.ActionDescriptor
}

// Actions returns the descriptors of the actions this person may see,
// with their availability, in registration order.
func (v *View) Actions() []protocol.ActionDescriptor {
	if v.actions == nil {
		v.actions = v.page.describe(v.Request, v.State)
	}
	return v.actions
}

// Action returns the descriptor of the named action, or nil when the
// person may not see it.
func (v *View) Action(name string) *protocol.ActionDescriptor {
	for i, a := range v.Actions() {
		if a.Name == name {
			return &v.Actions()[i]
		}
	}
	return nil
}

// LinkTag is the <link rel="affordances"> element that advertises the
// page's graph, for a page's <head>.
const LinkTag template.HTML = `<link rel="affordances" href="?affordances=1">`

// Funcs returns the template functions of the package, to add to a page
// template before parsing it:
//
//	tmpl := template.Must(template.New("").Funcs(site.Funcs()).ParseFS(...))
//
// affordancesLink writes the <link rel="affordances"> element for the
// page's <head>.
func Funcs() template.FuncMap {
	return template.FuncMap{
		"affordancesLink": func() template.HTML { return LinkTag },
	}
}

// serveHTML answers a browser's GET or HEAD of a page with its view,
// rendered from the same state a graph would hold.
func (s *Site) serveHTML(w http.ResponseWriter, hr *http.Request, p *Page) {
	r, err := s.request(hr)
	if err != nil {
		if errors.Is(err, ErrBadToken) {
			http.Error(w, "the bearer token was not accepted", http.StatusUnauthorized)
			return
		}
		s.log.ErrorContext(hr.Context(), "affordances: authenticator failed", "path", hr.URL.Path, "err", err)
		http.Error(w, "Internal Server Error", http.StatusInternalServerError)
		return
	}
	st, err := p.load(r)
	if err != nil {
		if errors.Is(err, ErrNotFound) {
			w.Header().Add("Vary", "Accept")
			s.notFound.ServeHTTP(w, hr)
			return
		}
		s.log.ErrorContext(r.Context(), "affordances: page loader failed", "route", p.route, "path", r.URL.Path, "err", err)
		http.Error(w, "Internal Server Error", http.StatusInternalServerError)
		return
	}
	s.render(w, r, p, &View{State: st, Request: r, Route: p.route, page: p}, http.StatusOK)
}

// render executes the page's view into a buffer, so that a template error
// becomes a clean 500 rather than half a page.
func (s *Site) render(w http.ResponseWriter, r *Request, p *Page, v *View, status int) {
	var buf bytes.Buffer
	if err := p.opts.View.Execute(&buf, v); err != nil {
		s.log.ErrorContext(r.Context(), "affordances: rendering view", "route", p.route, "err", err)
		http.Error(w, "Internal Server Error", http.StatusInternalServerError)
		return
	}
	h := w.Header()
	advertise(h)
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(buf.Len()))
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		w.Write(buf.Bytes())
	}
}
