package site

import (
	"crypto/sha256"
	"encoding/json"
	"net/http"
	"net/url"
	"time"

	"github.com/affordances-go/affordances/protocol"
)

// The person's proof: where the person acts on an action that needs them
// (a people-only action, or an action with approval about to run on
// their own form), a gate of StagePresence may ask for a proof that it is
// them and not an agent that drives their browser, such as a passkey's
// user-verified assertion. The proof binds exactly what will run
// ([Binding]); the form carries it in [FormProofField], which the proving
// extension's script fills in before the form is posted. This file is
// what the core gives such a gate: the call's binding, and the binding of
// a form before it is posted ([Site.FormConsent]).

// Binding is what a proof of the person binds: everything that will run,
// as strong customer authentication binds a payment's amount and payee
// ("dynamic linking"). A proof made for one binding is refused for any
// other: another input, amount, approval or page.
type Binding struct {
	// Origin is the site's origin, Page the page's path and Action the
	// action's name.
	Origin, Page, Action string
	// Input is the whole input as the door has it, in canonical JSON.
	Input string
	// Summary is what the person reads and approves ("" for a form the
	// person filled in themselves).
	Summary string
	// Basis is the [ApprovalBasis] of the state the person confirmed on
	// their own form (FormBasisField), such as the cart an order is
	// placed from; "" when the form carries none.
	Basis string
	// Credential is the credential that asked (an approval's) or the
	// person's own session.
	Credential string
	// Approval is the approval's id, and Expires when it ends; zero for
	// a form of the person's own.
	Approval string
	Expires  time.Time
}

// Digest is the SHA-256 of the binding's canonical JSON: what a
// challenge is derived from.
func (b Binding) Digest() []byte {
	j, _ := json.Marshal(struct {
		Origin     string `json:"o"`
		Page       string `json:"p"`
		Action     string `json:"a"`
		Input      string `json:"i"`
		Summary    string `json:"s"`
		Basis      string `json:"b,omitempty"`
		Credential string `json:"c"`
		Approval   string `json:"ap"`
		Expires    int64  `json:"e"`
	}{b.Origin, b.Page, b.Action, b.Input, b.Summary, b.Basis, b.Credential, b.Approval, b.Expires.Unix()})
	h := sha256.Sum256(j)
	return h[:]
}

// Binding is what a proof of the person binds for this call, made by
// the caller of r on a site whose origin is origin: the page, the action,
// the input as the door had it and the basis of the summary the person
// confirmed, for the caller's credential.
func (c *Consent) Binding(r *Request, origin string) Binding {
	return Binding{Origin: origin, Page: c.Page, Action: c.Action, Input: c.Form, Basis: c.ConfirmedBasis, Credential: r.Caller.ID}
}

// canonicalInput is the input as a door had it, in canonical JSON (object
// keys sorted): a form's fields, or an agent's JSON value.
func canonicalInput(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// FormConsent returns the caller and the call, as a gate of StagePresence
// sees it, of the form that the person is about to post on page with
// fields (those the form will post, the action's name and the basis of
// the summary included), for the script that asks for the person's proof
// before the post: the same fields posted to the page are judged as this
// call. A form of an action that does not need the person (neither
// people-only nor with approval) is an [*Error] (not_found).
func (s *Site) FormConsent(hr *http.Request, page string, fields url.Values) (*Request, *Consent, error) {
	p, r := s.route(hr, page, http.MethodPost)
	if p == nil {
		return nil, nil, newError(protocol.CodeNotFound, "no Affordances graph at this path")
	}
	req, e := s.authenticate(r)
	if e != nil {
		return nil, nil, e
	}
	var d decoded
	if e := d.parseForm(fields); e != nil {
		return nil, nil, e
	}
	a := p.byName[d.name]
	if a == nil || !a.needsPerson() || !a.visible(req) {
		return nil, nil, newError(protocol.CodeNotFound, "this page has no such action")
	}
	return req, &Consent{Page: req.URL.Path, Action: a.meta.Name, Form: canonicalInput(d.input.identity()),
		ConfirmedBasis: d.confirmedBasis, Confirmed: d.confirm}, nil
}

// needsPerson reports whether a is an action whose form, on the person's
// own page, asks for the person's proof on a site that proves it: a
// people-only action, or one with approval.
func (a *action) needsPerson() bool {
	return a.meta.PeopleOnly || a.summary.Approval
}
