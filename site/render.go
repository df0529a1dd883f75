package site

import (
	"html/template"
	"net/http"

	"github.com/affordances-go/affordances/protocol"
)

// The library's HTML helpers as plain functions, for an application that
// renders its pages with another engine than html/template (templ, a
// hand-written writer) or that renders a page the site wraps (a page
// without a View, under [Site.Wrap]). Each returns HTML that is safe to
// write as it is: template.HTML is a string.

// View returns the view of the page at r's path for r's caller: the
// page's state and what the library's forms need, as the site would give
// it to the page's own template. An application that renders a wrapped
// page itself calls it to write the library's forms with [ActionForm].
// It loads the page's state (the loader runs once more for the request).
// A path of no page, or a loader's ErrNotFound, is [ErrNotFound]; a
// rejected bearer token or any other failure is an [*Error].
func (s *Site) View(r *http.Request) (*View, error) {
	p, hr := s.route(r, r.URL.RequestURI(), http.MethodGet)
	if p == nil {
		return nil, ErrNotFound
	}
	req, e := s.authenticate(hr)
	if e != nil {
		return nil, e
	}
	req.byPerson = true // the person's own view of the page
	st, e := p.loadState(req)
	if e != nil {
		if e.code == protocol.CodeNotFound {
			return nil, ErrNotFound
		}
		return nil, e
	}
	return &View{State: st, Request: req, Route: p.route, page: p}, nil
}

// ActionForm writes a complete form for the named action of v's page, as
// the template function actionForm does (see [Funcs] for the presets and
// the labels). An action the caller may not see writes nothing.
func ActionForm(v *View, name string, presets ...any) (template.HTML, error) {
	return actionForm(v, name, presets...)
}
