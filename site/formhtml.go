package site

import (
	"fmt"
	"html"
	"html/template"

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
