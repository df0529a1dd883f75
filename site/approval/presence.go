package approval

import (
	"errors"
	"html/template"
	"net/http"

	"github.com/affordances-go/affordances/site"
)

// PresenceAskID is the id of the element that carries the challenge of
// presence on an approval page (PageData.PresenceAsk).
const PresenceAskID = "affordances-presence-ask"

// binding is what a proof of presence for approval a binds: the site,
// the page, the action, the input (its digest, a hash over the whole
// input), the summary the person reads, the credential that asked, the
// approval and its expiry.
func (p *Page) binding(hr *http.Request, a Approval) site.PresenceBinding {
	return site.PresenceBinding{Origin: p.Origin(hr), Page: a.Page, Action: a.Action, Input: a.Input,
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
	d.PresenceScript = site.PresenceScriptTag
	return nil
}

// checkPresence checks the proof of presence an approval was posted with,
// when the person must give one: refused says why it is refused, for the
// person.
func (p *Page) checkPresence(hr *http.Request, a Approval) (refused string, err error) {
	if p.Presence == nil {
		return "", nil
	}
	r, err := p.PresenceRequest(hr)
	if err != nil {
		return "", err
	}
	need, err := p.Presence.Required(r)
	if err != nil || !need {
		return "", err
	}
	proof := hr.PostFormValue(site.FormPresenceField)
	if proof == "" {
		return "confirm with your passkey: this needs you, not only your browser", nil
	}
	if err := p.Presence.Verify(r, p.binding(hr, a), proof); err != nil {
		var pe *site.PresenceError
		if errors.As(err, &pe) {
			return "your passkey did not confirm this: " + pe.Reason, nil
		}
		return "", err
	}
	return "", nil
}
