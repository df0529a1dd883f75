package site

import (
	"bytes"
	_ "embed" // the default confirmation page
	"html/template"
	"maps"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/affordances-go/affordances/internal/body"
	"github.com/affordances-go/affordances/internal/htmlform"
	"github.com/affordances-go/affordances/internal/respond"
	"github.com/affordances-go/affordances/internal/route"
	"github.com/affordances-go/affordances/internal/schema"
	"github.com/affordances-go/affordances/protocol"
)

// Form fields the site reads itself. Every other field is the action's
// input.
const (
	// FlashCookie is the cookie that carries the outcome of a successful form
	// post to the page the browser is sent to next: the action's message,
	// which [View.Flash] shows once, and, when the person comes back to the
	// same page, the values they posted ([View.Form]), so that a choice such
	// as a colour and size stays chosen. It lives a minute and is only ever
	// shown as text.
	FlashCookie = htmlform.FlashCookie
	// FormActionField names the action a form runs.
	FormActionField = htmlform.ActionField
	// FormConfirmField carries "true" when a person pressed the confirm
	// button of a confirm action's confirmation page.
	FormConfirmField = "_confirm"
	// FormBasisField carries, from the confirmation page back to the
	// action, the [ApprovalBasis] of the summary the person read, so that
	// the action can check it runs on that state.
	FormBasisField = "_basis"
	// FormApprovalField names the person's approval, for an agent that
	// posts a form with a bearer token: such a post is an agent's call,
	// under the rules of an agent's JSON call.
	FormApprovalField = "_approval"
	// FormButtonPreset is the name of the actionForm pair that sets the
	// text of the form's button, as in
	// {{actionForm . "removeFromCart" "sku" .SKU "_button" "Remove"}}.
	// It is not a form field: nothing of it is posted.
	FormButtonPreset = "_button"
	// FormProofField carries the person's proof (see [Binding]): the
	// script of the extension that asks for it fills it in.
	FormProofField = htmlform.PresenceField
	// ReturnParam is the query parameter (or form field) that names the
	// page to come back to after signing in: /login?next=/approvals/abc.
	ReturnParam = "next"
)

// WithReturn adds to signInURL the page to come back to (a path of this
// site; anything else is left out).
func WithReturn(signInURL, back string) string {
	if signInURL == "" || !htmlform.LocalPath(back) {
		return signInURL
	}
	sep := "?"
	if strings.Contains(signInURL, "?") {
		sep = "&"
	}
	return signInURL + sep + ReturnParam + "=" + url.QueryEscape(back)
}

// ReturnPath is where a sign-in (or any action that sends the person
// back) should redirect: the request's "next" parameter when it is a path
// of this site (htmlform.LocalPath), else fallback. Another site's address,
// "//host", "/\\host" or a control character is never followed.
func (r *Request) ReturnPath(fallback string) string {
	if r == nil || r.Request == nil {
		return fallback
	}
	if back := r.URL.Query().Get(ReturnParam); htmlform.LocalPath(back) {
		return back
	}
	return fallback
}

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
	c, out, e := s.execute(w.Header(), hr, p, TransportForm, func(d *decoded) *Error { return s.decodeForm(w, hr, d) })
	if e != nil {
		if e.code == protocol.CodeConfirmRequired {
			s.renderConfirm(w, c, e)
			return
		}
		s.renderFormFailure(w, c, e)
		return
	}
	c.auditCall(http.StatusSeeOther, "ok")
	to := out.redirect
	var keep map[string][]string
	if to == "" {
		to = c.r.URL.RequestURI()
		keep = c.formOf() // back on the same page: its form keeps the choices
	}
	htmlform.SetFlash(w, s.Secure(hr), out.delta.Message, keep)
	http.Redirect(w, hr, to, http.StatusSeeOther)
}

// decodeForm reads a posted form within the body limit, and the
// Idempotency-Key header.
func (s *Site) decodeForm(w http.ResponseWriter, hr *http.Request, d *decoded) *Error {
	d.idemKey = idempotencyKeyOf(hr)
	limit := s.opts.Limits.MaxBodyBytes
	err := body.Read(w, hr, limit, s.opts.Limits.BodyTimeout, func() error {
		if mt, _, _ := mime.ParseMediaType(hr.Header.Get("Content-Type")); mt == "multipart/form-data" {
			return hr.ParseMultipartForm(limit)
		}
		return hr.ParseForm()
	})
	if err != nil {
		return bodyError(err, "form", limit)
	}
	return d.parseForm(hr.PostForm)
}

// parseForm takes the action, the confirmation and the input fields from
// posted form values; it is the form decoder the fuzz target exercises.
func (d *decoded) parseForm(values url.Values) *Error {
	d.name = values.Get(FormActionField)
	if d.name == "" {
		return newError(protocol.CodeInvalidInput, "the form names no action")
	}
	d.confirm = values.Get(FormConfirmField) == "true"
	d.personActs = true
	d.confirmedBasis = values.Get(FormBasisField)
	d.presence = values.Get(FormProofField)
	d.approvalID = route.LastSegment(values.Get(FormApprovalField))
	fields := formFields{}
	for k, v := range values {
		if !strings.HasPrefix(k, "_") {
			fields[k] = v
		}
	}
	d.input = fields
	return nil
}

// formFields is an input written as a form's fields (the fields of the
// call itself, _action and the like, left out).
type formFields map[string][]string

func (f formFields) value(s *schema.Schema) (any, []byte, []protocol.Issue) {
	v, issues := htmlform.Decode(s, f)
	return v, nil, issues
}
func (f formFields) identity() any { return map[string][]string(f) }

// formOf returns the fields a form posted, or nil for another door's call.
func (c *call) formOf() map[string][]string {
	f, _ := c.input.(formFields)
	return f
}

// renderFormFailure re-renders the page with the error and the offending
// fields, with the status of the error.
func (s *Site) renderFormFailure(w http.ResponseWriter, c *call, e *Error) {
	p := c.page
	if p.opts.View == nil {
		s.htmlFailure(w, c.r.Request, e)
		return
	}
	st := c.before
	if st != nil {
		st.loadAll() // the view shows every entity
	}
	if st == nil || st.fault() != nil || st.loadErr() != nil {
		var le *Error
		if st, le = p.loadState(c.r); le != nil {
			s.htmlFailure(w, c.r.Request, le)
			return
		}
	}
	v := &View{State: st, Request: c.r, Route: p.route, page: p,
		Error: e.protocolError(), Form: url.Values(c.formOf()), FailedAction: c.name}
	s.renderPage(w, c.r, p, v, e.Status())
}

// ConfirmData is what the confirmation page is rendered from.
type ConfirmData struct {
	// State is the page's state as the guard saw it, so that the
	// confirmation page can keep the site's header (the cart, the
	// account) like every other page.
	*State
	// Summary says what the action would do, for the person approving.
	Summary string
	// Action is the action's name; Description its description.
	Action, Description string
	// Page is the URL the confirmation form posts back to.
	Page string
	// Input is the whole input, field by field, as the person reads it
	// beside the summary ([InputField]): what the summary leaves out is
	// seen too.
	Input []InputField
	// Fields are the submitted input fields, to post again as hidden
	// inputs, with the basis of the summary (FormBasisField) when the
	// action's input has one.
	Fields []FormField
	// ApprovalURL is set when the post was an agent's (a form sent with a
	// bearer token) and the action needs the person's approval on the
	// site: there is no button to press, the person approves there.
	ApprovalURL string
	// Scripts are the tags of the extensions' scripts, as [View.Scripts].
	Scripts template.HTML
	// AsksPerson is set when the confirmation's form carries the person's
	// proof (a people-only action, or one with approval, on a site that
	// proves the person): the form needs the data-presence attribute, and
	// the proving extension's script asks for the proof, where the person
	// has what gives it, before the form is posted.
	AsksPerson bool
	// Request is the request being answered.
	Request *Request
}

// Entities returns the page's entities by name, for the confirmation
// page's template, as [View.Entities] does for the page's.
func (d ConfirmData) Entities() map[string]any {
	if d.State == nil {
		return nil
	}
	return d.State.entities
}

// FormField is one name and value of a form.
type FormField struct{ Name, Value string }

// renderConfirm shows a person what a confirm action would do, with a
// button that posts the same form again with _confirm=true.
func (s *Site) renderConfirm(w http.ResponseWriter, c *call, e *Error) {
	if c.before != nil {
		c.before.loadAll() // the page's header shows entities the guard did not read
	}
	d := ConfirmData{State: c.before, Summary: e.message, Action: c.name, Description: c.act.meta.Description,
		Page: c.r.URL.RequestURI(), Request: c.r, Input: inputFields(c.act.input, c.value)}
	form := c.formOf()
	names := make([]string, 0, len(form))
	for k := range form {
		if htmlform.NamesField(c.act.input, k) {
			names = append(names, k)
		}
	}
	slices.Sort(names) // nested fields ("address.city") too, in a stable order
	for _, k := range names {
		for _, v := range form[k] {
			d.Fields = append(d.Fields, FormField{k, v})
		}
	}
	if e.basis != "" {
		d.Fields = append(d.Fields, FormField{FormBasisField, e.basis})
	}
	if ff := s.opts.FormFields; ff != nil {
		extra := ff(c.r.Request)
		for _, k := range slices.Sorted(maps.Keys(extra)) {
			d.Fields = append(d.Fields, FormField{k, extra[k]})
		}
	}
	d.ApprovalURL = e.approvalURL
	d.Scripts = s.scripts
	d.AsksPerson = s.provesPerson() && c.act.needsPerson() && d.ApprovalURL == ""
	var buf bytes.Buffer
	if err := s.opts.ConfirmView.Execute(&buf, d); err != nil {
		s.opts.Logger.ErrorContext(c.r.Context(), "affordances: rendering confirmation", "route", c.page.route, "err", err)
		http.Error(w, "Internal Server Error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	respond.HTML(w, c.r.Request, e.Status(), buf.Bytes())
}

// confirmHTML is the default confirmation page (Options.ConfirmView).
//
//go:embed confirm.html
var confirmHTML string

var defaultConfirmView = template.Must(template.New("confirm").Parse(confirmHTML))
