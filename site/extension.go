package site

import (
	"errors"
	"fmt"
	"html/template"
	"net/http"

	"github.com/affordances-go/affordances/internal/jsfile"
	"github.com/affordances-go/affordances/internal/negotiate"
)

// Extension is a feature that plugs into a site through its one seam,
// given to [New]: it adds gates to step 6 (consent), doors beside the
// site's pages, and scripts that every page the site renders loads. The
// core knows an extension only through what it added here, never by
// name, so that a payments check or another door needs no change to the
// core.
type Extension interface {
	// Extend adds the extension's parts to the site being built. It
	// runs once, inside New, in the order the extensions were given.
	Extend(x *Extender)
}

// Extend plugs more extensions in after [New], in their order, for an
// extension whose package mounts itself on a site it is given (as a
// door's Mount function does). Like Page, it panics after the site started serving.
func (s *Site) Extend(exts ...Extension) {
	if s.started.Load() {
		panic("site: Extend after the site started serving")
	}
	for _, ext := range exts {
		ext.Extend(&Extender{s: s})
	}
}

// WriteError answers a request that an extension's handler could not
// serve: an [*Error] of this package with its status and message (a
// delta to an agent that asked for an Affordances document, plain text
// otherwise); any other error 500, logged with the site's Logger, its
// text never shown. It is the answer every extension's page and endpoint
// gives, written once.
func (s *Site) WriteError(w http.ResponseWriter, r *http.Request, err error) {
	var e *Error
	if !errors.As(err, &e) {
		s.opts.Logger.ErrorContext(r.Context(), "affordances: an extension failed", "path", r.URL.Path, "err", err)
		e = newInternalError()
	}
	if negotiate.Graph(r) || negotiate.Call(r) {
		writeFailure(w, r, e)
		return
	}
	e.setHeaders(w.Header())
	http.Error(w, e.message, e.Status())
}

// ExtensionFunc is a function that is an [Extension].
type ExtensionFunc func(x *Extender)

// Extend calls f(x).
func (f ExtensionFunc) Extend(x *Extender) { f(x) }

// Extender is what an [Extension] adds to a site while New builds it.
type Extender struct {
	s *Site
}

// Site returns the site being built, for an extension that registers
// pages or reads the site's options.
func (x *Extender) Site() *Site { return x.s }

// Gate adds g to step 6, consent, of every call on every door, at stage
// (see [Stage]): the stage says where in the core's order it runs, and
// the gates of one stage run in the order they were added. A nil g, or a
// stage that is none of the package's, panics.
func (x *Extender) Gate(stage Stage, g Gate) {
	if g == nil || stage < StagePresence || stage > StagePolicy {
		panic(fmt.Sprintf("site: Extender.Gate(%d, %v): a gate needs a stage of the package's and a function", stage, g != nil))
	}
	x.s.gates[stage] = append(x.s.gates[stage], g)
}

// Door serves h at pattern beside the site's pages (a ServeMux pattern
// without method or host), behind the site's middleware, as
// [Site.Mount] does.
func (x *Extender) Door(pattern string, h http.Handler) { x.s.Mount(pattern, h) }

// ServeScript serves js at path (GET and HEAD, cached by browsers for an
// hour, never sniffed) and returns the tag that loads it with its
// Subresource Integrity value, for the pages that need it (or for
// [Extender.Script], to load it on every page).
func (x *Extender) ServeScript(path string, js []byte) template.HTML {
	x.Door(path, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		jsfile.Serve(w, r, js)
	}))
	return jsfile.Tag(path, jsfile.Integrity(js))
}

// SetValue keeps v on the site under key, for the extension's own
// functions that are handed the site later (a status a door asks for later): what
// an extension keeps lives as long as the site, and no registry of its
// own outlives it. Use a key of an unexported type of the extension's,
// as with context values.
func (x *Extender) SetValue(key, v any) { x.s.values.Store(key, v) }

// Value returns what an extension kept on the site under key
// ([Extender.SetValue]), or nil.
func (s *Site) Value(key any) any {
	v, _ := s.values.Load(key)
	return v
}

// Scripts returns the tags of the scripts the extensions put on every
// page ([Extender.Script]), for a page an extension renders itself.
func (s *Site) Scripts() template.HTML { return s.scripts }

// Script adds a script tag that every page the site renders loads in its
// head ({{.Scripts}} in a page's layout; [View.Scripts]), such as the
// script of a door that lives in the person's browser. A tag that is no
// <script> element panics.
func (x *Extender) Script(tag template.HTML) {
	if !scriptTag(string(tag)) {
		panic(fmt.Sprintf("site: Extender.Script(%q): not a <script> element", tag))
	}
	x.s.scripts += tag
}

// scriptTag reports whether s is one whole <script ...></script> element.
func scriptTag(s string) bool {
	const open, end = "<script", "</script>"
	return len(s) > len(open)+len(end) && s[:len(open)] == open && s[len(s)-len(end):] == end
}

// Stage is a place in the order of step 6, consent, which is the core's:
// a gate stands at one ([Extender.Gate]), and neither a door nor an
// extension changes the order (docs/architecture.md).
type Stage uint8

const (
	// StagePresence proves that the person, not an agent that drives
	// their browser, acts: it runs for the person's own call of an action
	// that needs them (people-only, or with approval) about to run, and
	// checks the call's proof ([Consent.Proof], bound to
	// [Consent.Binding]), answering [Forbidden] without a good one.
	StagePresence Stage = iota + 1
	// StageStanding lets an agent's call of a confirm action that brings
	// neither confirm: true nor an approval run on the person's approval
	// given in advance, a grant of their credential ("orders up to 50 EUR
	// a day, to my saved address"): a gate grants it ([Consent.Grant]),
	// and the action checks the grant's limits again where it writes
	// ([Request.Standing], [ErrOutsideGrant]). A gate that does not grant
	// may say why in [Consent.Beyond], for the approval page; for a call
	// of an action with approval it is asked for that alone.
	StageStanding
	// StageApproval decides an agent's call of an action with approval
	// that no standing grant covered: a gate grants it ([Consent.Grant])
	// on the person's approval of exactly this call, or asks the person
	// ([AskPerson]). The first gate that does either decides.
	StageApproval
	// StagePolicy holds back any call the checks before it let through:
	// an application's own rules. A gate here can only stop a call.
	StagePolicy
	stages
)

// Gate is a check of an extension's at step 6, consent: nil lets the call
// go on (granted, for a gate of StageApproval that called Grant); an
// error stops it, and nothing runs. An error made by this package's
// helpers ([Unavailable], [NotFound], [AskPerson]...) answers with its
// code, status and message; any other error, or a panic, is internal,
// logged and never shown.
type Gate func(r *Request, c *Consent) error

// Consent is a call at step 6 as a gate sees it: what would run, what
// the person reads, and the evidence its door brought.
type Consent struct {
	// Page is the page's path and Action the action's name.
	Page, Action string
	// Input is the call's input, validated and decoded into the action's
	// input type, and Value the same input as the JSON value the schema
	// validated.
	Input, Value any
	// State is the page's state as the guard saw it.
	State *State
	// Summary is what the person reads and approves, Basis the
	// [ApprovalBasis] of the state it was built from, and Fields the
	// whole input, field by field; all empty at StagePolicy.
	Summary, Basis string
	Fields         []InputField
	// Confirmed reports confirm: true; Approval is the id of the approval
	// the call brings ("" for none).
	Confirmed bool
	Approval  string
	// Reask, when set, says why the person is asked again (what they
	// approved changed before it ran; the call is beyond their standing
	// approval): a gate of StageApproval then asks and grants nothing.
	Reask string
	// Beyond says why the call is beyond the caller's standing approval,
	// for the person: a gate of StageStanding that does not grant the
	// call may set it ("beyond your standing approval: 29.00 EUR, with
	// 40.00 of 50.00 EUR used today"); "" otherwise.
	Beyond string
	// Proof is the person's proof the form carried ([FormProofField]),
	// ConfirmedBasis the basis of the summary the person confirmed on
	// their own form, and Form the whole input as the door had it, in
	// canonical JSON: what a proof binds ([Consent.Binding]).
	Proof, ConfirmedBasis, Form string

	granted *string // the basis the person approved, once a gate granted the call
}

// Grant records that the person approved exactly this call, on the state
// whose basis is basis (the [ApprovalBasis] of the summary they read):
// the action runs, and checks where it writes that it acts on that state
// ([Request.CheckApproved]). Only a gate of StageStanding or
// StageApproval grants.
func (c *Consent) Grant(basis string) { c.granted = &basis }
