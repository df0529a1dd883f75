package site

import (
	"bytes"
	"errors"
	"html/template"
	"net/http"
	"net/url"
	"strconv"
	"strings"

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

	// Error is set when the page is shown again after a form's call
	// failed: the error, with its issues.
	Error *protocol.Error
	// Form holds the values the failed form posted, to fill it again.
	Form url.Values
	// FailedAction names the action whose form failed.
	FailedAction string

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

// FieldError returns the message of the first issue about the named input
// field of the failed form, or "".
func (v *View) FieldError(field string) string {
	if v.Error == nil {
		return ""
	}
	want := "/" + escapePointer(field)
	for _, is := range v.Error.Issues {
		if is.Path == want || strings.HasPrefix(is.Path, want+"/") {
			return is.Message
		}
	}
	return ""
}

// LinkTag is the <link rel="affordances"> element that advertises the
// page's graph, for a page's <head>.
const LinkTag template.HTML = `<link rel="affordances" href="?affordances=1">`

// Funcs returns the template functions of the package, to add to a page
// template before parsing it:
//
//		tmpl := template.Must(template.New("").Funcs(site.Funcs()).ParseFS(...))
//
//	  - affordancesLink writes the <link rel="affordances"> element for the
//	    page's <head>.
//	  - actionForm VIEW NAME [FIELD VALUE]... writes a complete form for an
//	    action: a labelled control per input property, a submit button that
//	    is disabled (with the reason shown) when the action is unavailable,
//	    and the field errors of a failed post. FIELD VALUE pairs fix inputs
//	    as hidden fields, such as the SKU of a product page.
//	  - actionField NAME writes the hidden field that names the action, for
//	    forms written by hand.
func Funcs() template.FuncMap {
	return template.FuncMap{
		"affordancesLink": func() template.HTML { return LinkTag },
		"actionForm":      actionForm,
		"actionField":     actionField,
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
