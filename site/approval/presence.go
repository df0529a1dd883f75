package approval

import (
	"encoding/json"
	"errors"
	"html/template"
	"net/http"

	"github.com/affordances-go/affordances/site"
)

// PresenceAskID is the id of the element that carries the challenge of
// presence on an approval page (PageData.PresenceAsk).
const PresenceAskID = "affordances-presence-ask"

// Prover proves that the person, not an agent that drives their browser,
// decides: package site/presence's Passkeys is one. The approval page
// asks a person who must prove it (Required) for a user-verified
// assertion whose challenge binds the approval (Challenge), and takes the
// decision only with it (Verify). A refusal of Verify whose error has a
// method Reason() string is shown to the person with that reason; any
// other error is a failure of the Prover's own.
type Prover interface {
	Required(r *site.Request) (bool, error)
	Challenge(r *site.Request, b site.Binding) (json.RawMessage, error)
	Verify(r *site.Request, b site.Binding, proof string) error
}

// binding is what a proof of presence for approval a binds: the site,
// the page, the action, the input (its digest, a hash over the whole
// input), the summary the person reads, the credential that asked, the
// approval and its expiry.
func (p *Page) binding(hr *http.Request, a Approval) site.Binding {
	return site.Binding{Origin: p.Origin(hr), Page: a.Page, Action: a.Action, Input: a.Input,
		Summary: a.Summary, Credential: a.Credential, Approval: a.ID, Expires: a.Expires}
}

// askPresence fills d with the challenge of a pending approval, when the
// person must confirm with a passkey, or with the link to add one.
func (p *Page) askPresence(hr *http.Request, d *PageData) error {
	d.PasskeysURL = p.PasskeysURL
	if p.Presence == nil || d.Approval.State != Pending || d.Expired {
		return nil
	}
	r, err := p.PresenceRequest(hr)
	if err != nil {
		return err
	}
	need, err := p.Presence.Required(r)
	if err != nil || !need {
		return err
	}
	ask, err := p.Presence.Challenge(r, p.binding(hr, d.Approval))
	if err != nil {
		return err
	}
	d.Presence, d.PresenceAsk = true, template.JS(ask)
	return nil
}

// checkPresence checks the proof of presence an approval was posted with,
// when the person must give one: refused says why it is refused, for the
// person.
func (p *Page) checkPresence(r *site.Request, hr *http.Request, a Approval) (refused string, err error) {
	if p.Presence == nil {
		return "", nil
	}
	need, err := p.Presence.Required(r)
	if err != nil || !need {
		return "", err
	}
	proof := hr.PostFormValue(site.FormProofField)
	if proof == "" {
		return "confirm with your passkey: this needs you, not only your browser", nil
	}
	if err := p.Presence.Verify(r, p.binding(hr, a), proof); err != nil {
		var refused interface{ Reason() string }
		if errors.As(err, &refused) {
			return "your passkey did not confirm this: " + refused.Reason(), nil
		}
		return "", err
	}
	return "", nil
}
