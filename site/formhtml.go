package site

import (
	"fmt"
	"html"
	"html/template"
	"net/http"

	"github.com/affordances-go/affordances/internal/htmlform"
	"github.com/affordances-go/affordances/internal/words"
	"github.com/affordances-go/affordances/protocol"
)

// actionField is the template helper that writes the hidden field naming
// an action.
func actionField(name string) template.HTML {
	return template.HTML(`<input type="hidden" name="` + FormActionField + `" value="` + html.EscapeString(name) + `">`)
}

// actionForm is the template helper that writes a whole form for an
// action; see [Funcs].
func actionForm(v *View, name string, presets ...any) (template.HTML, error) {
	if v == nil || v.page == nil {
		return "", fmt.Errorf("actionForm: the first argument must be the page's View (.)")
	}
	if v.page.site.opts.NoFormDoor {
		return "", nil // the form door is off: no form would run
	}
	if len(presets)%2 != 0 {
		return "", fmt.Errorf("actionForm %s: presets must be FIELD VALUE pairs", name)
	}
	a := v.page.byName[name]
	d := v.Action(name)
	if a == nil || d == nil {
		return "", nil // unknown or hidden from this person: nothing to show
	}
	f := htmlform.Form{Action: name, Description: a.meta.Description, Input: a.input,
		Available: d.Available, Reason: d.Reason, Confirm: a.meta.Expose == protocol.ExposeConfirm, ReadOnly: a.meta.ReadOnly, NoTool: a.meta.PeopleOnly,
		Fixed: map[string]string{}, Button: words.FromIdentifier(name), Presence: v.presence(a),
		Failed: v.FailedAction == name && v.Error != nil, FieldError: v.FieldError, Values: v.Form.Get, Hidden: v.appFields()}
	for i := 0; i < len(presets); i += 2 {
		k, val := fmt.Sprint(presets[i]), fmt.Sprint(presets[i+1])
		if k == FormButtonPreset {
			f.Button = val
			continue
		}
		f.Fixed[k] = val
	}
	if f.Failed && len(v.Error.Issues) == 0 {
		f.Message = v.Error.Message
	}
	return template.HTML(f.HTML()), nil
}

// actionFields is the template helper that writes the hidden fields of a
// form written by hand: the field naming the action, the application's
// own fields (Options.FormFields: its CSRF token), and, for a people-only
// action or one with approval of a site with a Presence, the field the
// presence script fills (the form itself needs the data-presence
// attribute).
func actionFields(v *View, name string) (template.HTML, error) {
	if v == nil || v.page == nil {
		return "", fmt.Errorf("actionFields: the first argument must be the page's View (.)")
	}
	return template.HTML(htmlform.HiddenFields(name, v.appFields(), v.presence(v.page.byName[name]))), nil
}

// appFields are the application's fields for the view's forms
// (Options.FormFields), nil without any.
func (v *View) appFields() map[string]string {
	if ff := v.page.site.opts.FormFields; ff != nil && v.Request != nil {
		return ff(v.Request.Request)
	}
	return nil
}

// presence reports whether a's form carries the person's proof: a
// people-only action, or one with approval, of a site that proves the
// person (a gate of StagePresence).
func (v *View) presence(a *action) bool {
	return a != nil && a.needsPerson() && v.page.site.provesPerson()
}

// provesPerson reports whether the site has a gate of StagePresence.
func (s *Site) provesPerson() bool { return len(s.gates[StagePresence]) > 0 }

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
