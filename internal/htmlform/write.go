package htmlform

import (
	"fmt"
	"html"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/affordances-go/affordances/internal/mdtext"
	"github.com/affordances-go/affordances/internal/schema"
	"github.com/affordances-go/affordances/internal/words"
)

// ActionField is the hidden field that names the action a form runs.
const ActionField = "_action"

// PresenceField is the field that carries a proof of presence.
const PresenceField = "_presence"

// Form is what is written of one action's form.
type Form struct {
	// Action is the action's name; Description its description ("" for
	// words made from the name), for the WebMCP tool the form declares.
	Action, Description string
	// Input is the action's input schema; nil for an action without one.
	Input *schema.Schema
	// Available and Reason say whether the person can run it now, and
	// why not: an unavailable form's button is disabled, with the reason
	// beside it, and it declares no tool.
	Available bool
	Reason    string
	// Confirm marks a confirm action: its tool never submits by itself.
	Confirm bool
	// ReadOnly marks an action that changes nothing: the only kind whose
	// tool the browser submits for the agent (toolautosubmit).
	ReadOnly bool
	// NoTool marks an action for people only: its form declares no
	// WebMCP tool.
	NoTool bool
	// Fixed are input values the page sets: written as hidden fields.
	Fixed map[string]string
	// Hidden are fields of the application's that go with every form
	// (its CSRF token), written as hidden fields before the rest.
	Hidden map[string]string
	// Presence marks a form the person proves their presence on (a
	// people-only action of a site with a Presence): the form carries
	// data-presence and the empty field the page's script fills.
	Presence bool
	// Button is the submit button's text.
	Button string
	// Failed is set when the page shows the form again after its call
	// failed: Message is shown above the form when no field is at fault,
	// FieldError gives each field's message, and Values refill it.
	Failed     bool
	Message    string
	FieldError func(field string) string
	Values     func(field string) string
}

// HiddenFields writes the hidden fields every form of an action carries:
// the field naming the action, the empty field a presence script fills
// (presence), and the application's own fields (its CSRF token), sorted.
// The library's forms and the forms written by hand share it.
func HiddenFields(action string, hidden map[string]string, presence bool) string {
	esc := html.EscapeString
	var b strings.Builder
	fmt.Fprintf(&b, `<input type="hidden" name="%s" value="%s">`, ActionField, esc(action))
	if presence {
		fmt.Fprintf(&b, `<input type="hidden" name="%s" value="">`, PresenceField)
	}
	for _, k := range slices.Sorted(maps.Keys(hidden)) {
		fmt.Fprintf(&b, `<input type="hidden" name="%s" value="%s">`, esc(k), esc(hidden[k]))
	}
	return b.String()
}

// HTML writes the form: the hidden fields, a labelled control for each
// input property, the button, and the reason an unavailable action
// cannot run now.
func (f Form) HTML() string {
	esc := html.EscapeString
	var b strings.Builder
	presence := ""
	if f.Presence {
		presence = " data-presence"
	}
	fmt.Fprintf(&b, `<form method="post" class="affordances-action" data-action="%s"%s%s>`, esc(f.Action), f.toolAttrs(), presence)
	b.WriteString(HiddenFields(f.Action, f.Hidden, f.Presence))
	var props []schema.Property
	required := map[string]bool{}
	if f.Input != nil {
		props = f.Input.Properties
		for _, r := range f.Input.Required {
			required[r] = true
		}
	}
	for _, p := range props {
		if val, ok := f.Fixed[p.Name]; ok {
			fmt.Fprintf(&b, `<input type="hidden" name="%s" value="%s">`, esc(p.Name), esc(val))
		}
	}
	if f.Failed && f.Message != "" {
		fmt.Fprintf(&b, `<p class="form-error" role="alert">%s</p>`, esc(f.Message))
	}
	for _, p := range props {
		if _, ok := f.Fixed[p.Name]; ok {
			continue
		}
		value, msg := "", ""
		if p.Schema.Default != nil {
			value = fmt.Sprint(p.Schema.Default)
		}
		if f.Failed {
			value, msg = f.Values(p.Name), f.FieldError(p.Name)
		}
		writeControl(&b, f.Action, p, value, required[p.Name], msg, f.Available)
	}
	disabled := ""
	if !f.Available {
		disabled = " disabled"
	}
	fmt.Fprintf(&b, `<button type="submit"%s>%s</button>`, disabled, esc(f.Button))
	if !f.Available && f.Reason != "" {
		fmt.Fprintf(&b, `<p class="reason">%s</p>`, esc(f.Reason))
	}
	b.WriteString(`</form>`)
	return b.String()
}

// toolAttrs are the attributes that declare the form as a WebMCP tool:
// its name and description, and, for a read-only action alone,
// toolautosubmit, which lets the browser submit the form for the agent.
// A form of an action that changes something is filled by the agent's
// tool and sent by the person's press of its button. An action the
// person cannot run now declares no tool.
func (f Form) toolAttrs() string {
	if !f.Available || f.NoTool {
		return ""
	}
	desc := f.Description
	if desc == "" {
		desc = words.FromIdentifier(f.Action)
	}
	out := ` toolname="` + html.EscapeString(f.Action) + `" tooldescription="` + html.EscapeString(desc) + `"`
	if f.ReadOnly && !f.Confirm {
		out += " toolautosubmit"
	}
	return out
}

// writeControl writes the label and control of one input property.
func writeControl(b *strings.Builder, action string, p schema.Property, value string, required bool, msg string, tool bool) {
	esc := html.EscapeString
	id := esc(action + "-" + p.Name)
	label := p.Schema.Title
	if label == "" {
		label = p.Schema.Description
	}
	if label == "" {
		label = words.FromIdentifier(p.Name)
	}
	fmt.Fprintf(b, `<p class="field"><label for="%s">%s</label> `, id, esc(label))
	req := ""
	if required {
		req = " required"
	}
	invalid := ""
	if msg != "" {
		invalid = ` aria-invalid="true" aria-describedby="` + id + `-error"`
	}
	if tool { // the field is a parameter of the form's WebMCP tool
		invalid += ` toolparamtitle="` + esc(label) + `"`
		if p.Schema.Description != "" {
			invalid += ` toolparamdescription="` + esc(p.Schema.Description) + `"`
		}
	}
	s := p.Schema
	switch {
	case len(s.Enum) > 0:
		fmt.Fprintf(b, `<select id="%s" name="%s"%s%s>`, id, esc(p.Name), req, invalid)
		for _, e := range s.Enum {
			opt := fmt.Sprint(e)
			sel := ""
			if opt == value {
				sel = " selected"
			}
			fmt.Fprintf(b, `<option value="%s"%s>%s</option>`, esc(opt), sel, esc(opt))
		}
		b.WriteString(`</select>`)
	case s.TypeName() == "boolean":
		checked := ""
		if value == "true" || value == "on" {
			checked = " checked"
		}
		fmt.Fprintf(b, `<input type="checkbox" id="%s" name="%s" value="true"%s%s>`, id, esc(p.Name), checked, invalid)
	default:
		typ := "text"
		switch {
		case s.TypeName() == "integer" || s.TypeName() == "number":
			typ = "number"
		case s.Format == "email":
			typ = "email"
		case strings.Contains(strings.ToLower(p.Name), "password"):
			typ = "password"
		}
		attrs := ""
		if s.Minimum != nil {
			attrs += ` min="` + strconv.FormatFloat(*s.Minimum, 'g', -1, 64) + `"`
		}
		if s.Maximum != nil {
			attrs += ` max="` + strconv.FormatFloat(*s.Maximum, 'g', -1, 64) + `"`
		}
		if s.MaxLength != nil {
			attrs += ` maxlength="` + strconv.Itoa(*s.MaxLength) + `"`
		}
		if typ == "password" {
			value = "" // never echo a password back
		}
		// What the field holds, for the browser's autofill and password
		// manager: the property's own hint, else the current password.
		if hint := s.Autocomplete; hint != "" {
			attrs += ` autocomplete="` + esc(hint) + `"`
		} else if typ == "password" {
			attrs += ` autocomplete="current-password"`
		}
		fmt.Fprintf(b, `<input type="%s" id="%s" name="%s" value="%s"%s%s%s>`, typ, id, esc(p.Name), esc(value), attrs, req, invalid)
	}
	if msg != "" {
		fmt.Fprintf(b, ` <span class="field-error" id="%s-error">%s</span>`, id, esc(msg))
	}
	b.WriteString(`</p>`)
}

// LocalPath reports whether a redirect stays on this site: a path that
// starts with a slash, with no empty segment ("//", which a browser reads
// as another host, and which is what cleaning "/./\\host" would leave),
// and no backslash or control character anywhere (browsers read "/\\host"
// as "//host" and drop tabs and newlines). Dot segments are allowed:
// nothing they clean to can leave the site without a "//".
func LocalPath(s string) bool {
	if !strings.HasPrefix(s, "/") {
		return false
	}
	if strings.ContainsFunc(s, func(r rune) bool { return r == '\\' || mdtext.UnsafeRune(r) || r == '\u2028' || r == '\u2029' }) {
		return false
	}
	p, _, _ := strings.Cut(s, "?")
	p, _, _ = strings.Cut(p, "#")
	return !strings.Contains(p, "//")
}
