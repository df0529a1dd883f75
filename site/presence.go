package site

import (
	"crypto/sha256"
	"encoding/json"
	"errors"
	"html/template"
	"net/http"
	"net/url"
	"time"

	"github.com/affordances-go/affordances/internal/htmlform"

	"github.com/affordances-go/affordances/protocol"
)

// Presence proves that the person is there, not an agent that drives
// their browser: a user-verified passkey assertion (WebAuthn) whose
// challenge binds exactly what will run. An extension implements it with
// passkeys; a site plugs it in with Options.Presence, and then:
//
//   - a people-only action ([Action.PeopleOnly]), and an action with
//     approval that the person runs on their own form, runs for a person
//     who has a passkey only with such a proof of that call, posted by
//     the form's script in [FormPresenceField] (step 6, consent);
//   - the approval page takes an approval from
//     such a person only with a proof of that approval.
//
// A person without a passkey works as before. What presence cannot stop
// is said in docs/security.md.
type Presence interface {
	// Required reports whether the person r acts for must prove their
	// presence: their account has a passkey.
	Required(r *Request) (bool, error)
	// Challenge returns what the page's script hands the browser to ask
	// for the proof (WebAuthn's request options, as JSON), with a
	// challenge bound to b and usable once.
	Challenge(r *Request, b PresenceBinding) (json.RawMessage, error)
	// Verify checks the proof the page posted against b: the signature
	// of one of the person's passkeys, user verified, made on this site
	// for a challenge bound to b, not used before. An error says why, for
	// the person.
	Verify(r *Request, b PresenceBinding, proof string) error
}

// The script of presence and its field: where the extension of presence
// serves the script (the approval page and the pages of forms that ask
// the person load it), the tag that loads it ([View.PresenceScript]
// writes it only where the site proves presence), and the form field
// that carries the proof, which the script fills in before the form is
// posted.
const (
	PresenceScriptPath               = "/_affordances/presence.js"
	PresenceScriptTag  template.HTML = `<script src="` + PresenceScriptPath + `" defer></script>`
	FormPresenceField                = htmlform.PresenceField
)

// PresenceBinding is what a proof of presence binds: everything that
// will run, as strong customer authentication binds a payment's amount
// and payee ("dynamic linking"). A proof made for one binding is refused
// for any other: another input, amount, approval or page.
type PresenceBinding struct {
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
	// a people-only action.
	Approval string
	Expires  time.Time
}

// Digest is the SHA-256 of the binding's canonical JSON: what a
// challenge is derived from.
func (b PresenceBinding) Digest() []byte {
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

// Presence returns the site's Presence (Options.Presence), nil when it
// has none: for the approval page.
func (s *Site) Presence() Presence { return s.opts.Presence }

// Origin is the site's own origin for r: its first configured origin,
// else the scheme and host r reached. A proof of presence binds it.
func (s *Site) Origin(r *http.Request) string {
	if len(s.origins) > 0 {
		return s.origins[0]
	}
	scheme := "http"
	if s.Secure(r) {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

// canonicalInput is the input as a door had it, in canonical JSON (object
// keys sorted): a form's fields, or an agent's JSON value.
func canonicalInput(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// PresenceError is a proof of presence that is refused: Reason says why,
// for the person. Any other error of a [Presence] is a failure of its own.
type PresenceError struct{ Reason string }

func (e *PresenceError) Error() string { return "presence: " + e.Reason }

// FormPresence returns the binding and the request of the form of a
// people-only action, or of an action with approval, that the person is
// about to post on page, with its fields (those the form will post, the
// action's name and the basis of the summary included), for the script
// that asks the person's passkey before the post. The same fields posted
// to the page bind the same way. A form of any other action is an
// [*Error] (not_found).
func (s *Site) FormPresence(hr *http.Request, page string, fields url.Values) (*Request, PresenceBinding, error) {
	p, r := s.route(hr, page, http.MethodPost)
	if p == nil {
		return nil, PresenceBinding{}, newError(protocol.CodeNotFound, "no Affordances graph at this path")
	}
	req, e := s.authenticate(r)
	if e != nil {
		return nil, PresenceBinding{}, e
	}
	var d decoded
	if e := d.parseForm(fields); e != nil {
		return nil, PresenceBinding{}, e
	}
	a := p.byName[d.name]
	if a == nil || !a.presenceNeeded() || !a.visible(req) {
		return nil, PresenceBinding{}, newError(protocol.CodeNotFound, "this page has no such action")
	}
	return req, s.formBinding(req, a.meta.Name, d.input.identity(), d.confirmedBasis), nil
}

// presenceNeeded reports whether a's form, on the person's own page,
// carries a proof of presence on a site with a [Presence]: the forms of
// people-only actions and of actions with approval.
func (a *action) presenceNeeded() bool {
	return a.meta.PeopleOnly || a.summary.Approval
}

// checkPresence asks the site's [Presence] whether the person must prove
// they are there (they have a passkey) and, if so, verifies the call's
// proof against exactly what will run. Without it the call stops,
// forbidden, and nothing runs.
func (c *call) checkPresence() *Error {
	p := c.site.opts.Presence
	need, err := p.Required(c.r)
	if err != nil {
		c.site.opts.Logger.ErrorContext(c.r.Context(), "affordances: checking presence", "route", c.page.route, "err", err)
		return newInternalError()
	}
	if !need {
		return nil
	}
	if c.presence == "" {
		return newError(protocol.CodeUnauthorized, "confirm with your passkey: this needs you, not only your browser").withStatus(http.StatusForbidden)
	}
	if err := p.Verify(c.r, c.presenceBinding(), c.presence); err != nil {
		var pe *PresenceError
		if errors.As(err, &pe) {
			return newError(protocol.CodeUnauthorized, "your passkey did not confirm this: "+pe.Reason).withStatus(http.StatusForbidden)
		}
		c.site.opts.Logger.ErrorContext(c.r.Context(), "affordances: verifying presence", "route", c.page.route, "err", err)
		return newInternalError()
	}
	return nil
}

// presenceBinding is what this call's proof of presence must bind.
func (c *call) presenceBinding() PresenceBinding {
	var in any
	if c.input != nil {
		in = c.input.identity()
	}
	return c.site.formBinding(c.r, c.act.meta.Name, in, c.confirmedBasis)
}

// formBinding is what a proof of presence binds for a form of r's page:
// the pipeline and FormPresence build it here, alike.
func (s *Site) formBinding(r *Request, action string, input any, basis string) PresenceBinding {
	return PresenceBinding{Origin: s.Origin(r.Request), Page: r.URL.Path, Action: action,
		Input: canonicalInput(input), Basis: basis, Credential: r.Caller.ID}
}
