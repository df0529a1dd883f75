package site

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/affordances-go/affordances/internal/schema"
	"github.com/affordances-go/affordances/protocol"
)

// Form fields the site reads itself. Every other field is the action's
// input.
const (
	// FormActionField names the action a form runs.
	FormActionField = "_action"
	// FormConfirmField carries "true" when a person pressed the confirm
	// button of a confirm action's confirmation page.
	FormConfirmField = "_confirm"
)

// isForm reports whether a POST carries an HTML form.
func isForm(r *http.Request) bool {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	return err == nil && (mt == "application/x-www-form-urlencoded" || mt == "multipart/form-data")
}

// serveFormCall runs an action posted by an HTML form through the same
// pipeline as an agent's call. Success redirects (303) to the action's
// redirect or back to the page; a failure re-renders the page with the
// error; a confirm action first shows the confirmation page.
func (s *Site) serveFormCall(w http.ResponseWriter, hr *http.Request, p *Page) {
	c, out, f := s.execute(w, hr, p, transportForm, func(c *call) *failure { return c.decodeForm(w, hr) })
	if f != nil {
		if f.err.Code == protocol.CodeConfirmRequired {
			s.renderConfirm(w, c, f)
			return
		}
		s.renderFormFailure(w, c, f)
		return
	}
	c.auditCall(http.StatusSeeOther, "ok")
	to := out.redirect
	if !isLocalPath(to) {
		to = c.r.URL.RequestURI()
	}
	http.Redirect(w, hr, to, http.StatusSeeOther)
}

// isLocalPath reports whether a redirect stays on this site.
func isLocalPath(s string) bool {
	return strings.HasPrefix(s, "/") && !strings.HasPrefix(s, "//") && !strings.HasPrefix(s, "/\\")
}

// decodeForm reads a posted form within the body limit.
func (c *call) decodeForm(w http.ResponseWriter, hr *http.Request) *failure {
	hr.Body = http.MaxBytesReader(w, hr.Body, c.site.maxBody)
	mt, _, _ := mime.ParseMediaType(hr.Header.Get("Content-Type"))
	var err error
	if mt == "multipart/form-data" {
		err = hr.ParseMultipartForm(c.site.maxBody)
	} else {
		err = hr.ParseForm()
	}
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return fail(http.StatusRequestEntityTooLarge, protocol.CodeInvalidInput,
				fmt.Sprintf("the form is larger than %d bytes", c.site.maxBody))
		}
		return fail(http.StatusBadRequest, protocol.CodeInvalidInput, "the form could not be read")
	}
	return c.parseForm(hr.PostForm)
}

// parseForm takes the action, the confirmation and the input fields from
// posted form values; it is the form decoder the fuzz target exercises.
func (c *call) parseForm(values url.Values) *failure {
	c.name = values.Get(FormActionField)
	if c.name == "" {
		return fail(http.StatusBadRequest, protocol.CodeInvalidInput, "the form names no action")
	}
	c.confirm = values.Get(FormConfirmField) == "true"
	c.form = map[string][]string{}
	for k, v := range values {
		if !strings.HasPrefix(k, "_") {
			c.form[k] = v
		}
	}
	return nil
}

// formInput converts form values to the JSON value the input schema
// describes: numbers, integers and booleans are parsed, arrays take every
// value of their field. Fields the schema does not name are ignored (forms
// carry other things, such as an application's own tokens). An empty field
// of an optional property counts as absent, and an absent boolean as false,
// as an unchecked checkbox sends nothing.
func formInput(s *schema.Schema, form map[string][]string) (any, []protocol.Issue) {
	out := map[string]any{}
	if s == nil || len(s.Properties) == 0 {
		for k, v := range form {
			out[k] = v[0]
		}
		return out, nil
	}
	required := map[string]bool{}
	for _, r := range s.Required {
		required[r] = true
	}
	var issues []protocol.Issue
	for _, p := range s.Properties {
		vals, present := form[p.Name]
		typ := p.Schema.TypeName()
		if typ == "boolean" && (!present || len(vals) == 0) {
			out[p.Name] = false
			continue
		}
		if !present || len(vals) == 0 || (vals[0] == "" && !required[p.Name] && typ != "array") {
			continue
		}
		if typ == "array" {
			items := []any{}
			for i, v := range vals {
				if v == "" {
					continue
				}
				x, err := formValue(p.Schema.Items, v)
				if err != nil {
					issues = append(issues, protocol.Issue{Path: "/" + escapePointer(p.Name) + "/" + strconv.Itoa(i), Message: err.Error(), Keyword: "type"})
					continue
				}
				items = append(items, x)
			}
			out[p.Name] = items
			continue
		}
		x, err := formValue(p.Schema, vals[0])
		if err != nil {
			issues = append(issues, protocol.Issue{Path: "/" + escapePointer(p.Name), Message: err.Error(), Keyword: "type"})
			continue
		}
		out[p.Name] = x
	}
	return out, issues
}

// formValue converts one form value by its schema's type.
func formValue(s *schema.Schema, v string) (any, error) {
	if s == nil {
		return v, nil
	}
	t := strings.TrimSpace(v)
	switch s.TypeName() {
	case "integer":
		if _, err := strconv.ParseInt(t, 10, 64); err != nil {
			return nil, fmt.Errorf("must be a whole number")
		}
		return json.Number(t), nil
	case "number":
		f, err := strconv.ParseFloat(t, 64)
		if err != nil || f != f || f > 1e308 || f < -1e308 {
			return nil, fmt.Errorf("must be a number")
		}
		return json.Number(strconv.FormatFloat(f, 'g', -1, 64)), nil
	case "boolean":
		switch strings.ToLower(t) {
		case "on", "true", "1", "yes":
			return true, nil
		case "", "off", "false", "0", "no":
			return false, nil
		}
		return nil, fmt.Errorf("must be true or false")
	}
	return v, nil
}

// renderFormFailure re-renders the page with the error and the offending
// fields, with the status of the error.
func (s *Site) renderFormFailure(w http.ResponseWriter, c *call, f *failure) {
	p := c.page
	if p.opts.View == nil {
		http.Error(w, f.err.Message, f.status)
		return
	}
	st := c.before
	if st == nil {
		var lf *failure
		if st, lf = c.load(); lf != nil {
			if lf.err.Code == protocol.CodeNotFound {
				s.notFound.ServeHTTP(w, c.r.Request)
				return
			}
			http.Error(w, "Internal Server Error", http.StatusInternalServerError)
			return
		}
	}
	v := &View{State: st, Request: c.r, Route: p.route, page: p,
		Error: &f.err, Form: url.Values(c.form), FailedAction: c.name}
	s.render(w, c.r, p, v, f.status)
}

// ConfirmData is what the confirmation page is rendered from.
type ConfirmData struct {
	// Summary says what the action would do, for the person approving.
	Summary string
	// Action is the action's name; Description its description.
	Action, Description string
	// Page is the URL the confirmation form posts back to.
	Page string
	// Fields are the submitted input fields, to post again as hidden
	// inputs.
	Fields []FormField
	// Request is the request being answered.
	Request *Request
}

// FormField is one name and value of a form.
type FormField struct{ Name, Value string }

// renderConfirm shows a person what a confirm action would do, with a
// button that posts the same form again with _confirm=true.
func (s *Site) renderConfirm(w http.ResponseWriter, c *call, f *failure) {
	d := ConfirmData{Summary: f.err.Message, Action: c.name, Description: c.act.meta.Description,
		Page: c.r.URL.RequestURI(), Request: c.r}
	for _, p := range c.act.input.Properties {
		for _, v := range c.form[p.Name] {
			d.Fields = append(d.Fields, FormField{p.Name, v})
		}
	}
	var buf bytes.Buffer
	if err := s.confirmView.Execute(&buf, d); err != nil {
		s.log.ErrorContext(c.r.Context(), "affordances: rendering confirmation", "route", c.page.route, "err", err)
		http.Error(w, "Internal Server Error", http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(f.status)
	w.Write(buf.Bytes())
}

var defaultConfirmView = template.Must(template.New("confirm").Parse(`<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Please confirm</title></head>
<body>
<main>
<h1>Please confirm</h1>
<p>{{.Summary}}</p>
<form method="post" action="{{.Page}}">
<input type="hidden" name="_action" value="{{.Action}}">
<input type="hidden" name="_confirm" value="true">
{{range .Fields}}<input type="hidden" name="{{.Name}}" value="{{.Value}}">
{{end}}<button type="submit">Confirm</button>
<a href="{{.Page}}">Cancel</a>
</form>
</main>
</body>
</html>
`))
