package site

import (
	"fmt"
	"html"
	"html/template"
	"strconv"
	"strings"

	"github.com/affordances-go/affordances/internal/schema"
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
	if len(presets)%2 != 0 {
		return "", fmt.Errorf("actionForm %s: presets must be FIELD VALUE pairs", name)
	}
	a := v.page.byName[name]
	d := v.Action(name)
	if a == nil || d == nil {
		return "", nil // unknown or hidden from this person: nothing to show
	}
	fixed := map[string]string{}
	button := words.FromIdentifier(name)
	for i := 0; i < len(presets); i += 2 {
		k, val := fmt.Sprint(presets[i]), fmt.Sprint(presets[i+1])
		if k == FormButtonPreset {
			button = val
			continue
		}
		fixed[k] = val
	}
	esc := html.EscapeString
	var b strings.Builder
	fmt.Fprintf(&b, `<form method="post" class="affordances-action" data-action="%s"%s>`, esc(name), toolAttrs(a, d))
	b.WriteString(string(actionField(name)))
	if a.input != nil {
		for _, p := range a.input.Properties {
			if val, ok := fixed[p.Name]; ok {
				fmt.Fprintf(&b, `<input type="hidden" name="%s" value="%s">`, esc(p.Name), esc(val))
			}
		}
	}
	failed := v.FailedAction == name && v.Error != nil
	if failed && len(v.Error.Issues) == 0 {
		fmt.Fprintf(&b, `<p class="form-error" role="alert">%s</p>`, esc(v.Error.Message))
	}
	if a.input != nil {
		required := map[string]bool{}
		for _, r := range a.input.Required {
			required[r] = true
		}
		for _, p := range a.input.Properties {
			if _, ok := fixed[p.Name]; ok {
				continue
			}
			value := ""
			if p.Schema.Default != nil {
				value = fmt.Sprint(p.Schema.Default)
			}
			if failed {
				value = v.Form.Get(p.Name)
			}
			msg := ""
			if failed {
				msg = v.FieldError(p.Name)
			}
			writeControl(&b, name, p, value, required[p.Name], msg, d.Available)
		}
	}
	disabled := ""
	if !d.Available {
		disabled = " disabled"
	}
	fmt.Fprintf(&b, `<button type="submit"%s>%s</button>`, disabled, esc(button))
	if !d.Available && d.Reason != "" {
		fmt.Fprintf(&b, `<p class="reason">%s</p>`, esc(d.Reason))
	}
	b.WriteString(`</form>`)
	return template.HTML(b.String()), nil
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
		fmt.Fprintf(b, `<input type="%s" id="%s" name="%s" value="%s"%s%s%s>`, typ, id, esc(p.Name), esc(value), attrs, req, invalid)
	}
	if msg != "" {
		fmt.Fprintf(b, ` <span class="field-error" id="%s-error">%s</span>`, id, esc(msg))
	}
	b.WriteString(`</p>`)
}

// toolAttrs are the attributes that declare a form's action as a WebMCP
// tool: its name and description, and toolautosubmit, which lets the
// browser's agent submit the form, for every action but a confirm action
// (the person presses its button). An action the person cannot run now
// declares no tool.
func toolAttrs(a *action, d *protocol.ActionDescriptor) string {
	if !d.Available {
		return ""
	}
	desc := a.meta.Description
	if desc == "" {
		desc = words.FromIdentifier(a.meta.Name)
	}
	out := ` toolname="` + html.EscapeString(a.meta.Name) + `" tooldescription="` + html.EscapeString(desc) + `"`
	if a.meta.Expose != protocol.ExposeConfirm {
		out += " toolautosubmit"
	}
	return out
}
