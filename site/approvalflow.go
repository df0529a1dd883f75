package site

import "github.com/affordances-go/affordances/protocol"

// Approvals, an extension of v0, are an extension's: their data, their
// stores and the page where the person decides. The extension adds a gate
// of StageApproval; this file is where step 6 asks it, and where a
// standing grant covers a call in advance.

// approve is step 6 for an action with approval called by an agent:
// nothing runs unless a gate of StageApproval grants the call, with the
// approval the person gave for exactly this call and summary; a gate that
// does not asks the person, with an error (AskPerson). reask, when set,
// says why the person is asked again: the gates then ask anew and grant
// nothing. A site with no such gate answers internal, and logs why: such
// an action never runs without the person.
func (c *call) approve(summary, reask string) *Error {
	gates := c.site.gates[StageApproval]
	if len(gates) == 0 {
		return c.noApprovals()
	}
	k := c.consentOf(summary)
	if reask != "" {
		k.Reask, k.Approval = reask, ""
	}
	if sr, ok := c.site.opts.Grants.Standing.(StandingReasons); ok {
		k.Beyond = sr.Beyond(c.r, c.act.meta.Name, c.in)
	}
	for _, g := range gates {
		if e := c.runGate(g, k); e != nil {
			return e
		}
		if k.granted != nil {
			c.r.approved = &approvedCall{basis: *k.granted}
			return nil
		}
	}
	c.site.opts.Logger.ErrorContext(c.r.Context(), "affordances: no approval gate granted the call or asked the person",
		"route", c.page.route, "action", c.act.meta.Name)
	return newInternalError()
}

// coveredInAdvance asks the site's StandingApprovals whether the person
// approved this call, whose summary the person would read, in advance,
// and marks the call so when they did.
func (c *call) coveredInAdvance(summary string) bool {
	if c.site.opts.Grants.Standing == nil {
		return false
	}
	basis := c.basis()
	if !c.site.opts.Grants.Standing.Covers(c.r, c.act.meta.Name, c.in, summary, basis) {
		return false
	}
	c.r.approved = &approvedCall{basis: basis, standing: true}
	return true
}

// outsideGrant answers a call that ran on a standing approval and whose
// action found, where it writes, that it is beyond the grant: nothing
// ran, and the person is asked, on the approval page for an action with
// approval.
func (c *call) outsideGrant() *Error {
	const why = "That is beyond what the person allowed in advance, so nothing ran."
	c.r.approved = nil
	text := c.summary()
	if c.act.summary.Approval {
		return c.approve(text, why)
	}
	e := newError(protocol.CodeConfirmRequired, why+" "+text)
	e.basis = c.basis()
	return e
}

// noApprovals answers a call that needs the person's approval on a site
// that has nobody to ask: nothing runs, and the log says why.
func (c *call) noApprovals() *Error {
	c.site.opts.Logger.ErrorContext(c.r.Context(), "affordances: the action needs the person's approval, and the site has no Approvals: plug in a gate of StageApproval (docs/architecture.md)",
		"route", c.page.route, "action", c.act.meta.Name)
	return newInternalError()
}

// needsApprovals reports whether some action of the site has approval.
func (s *Site) needsApprovals() bool {
	for _, p := range s.pages {
		for _, a := range p.actions {
			if a.summary.Approval {
				return true
			}
		}
	}
	return false
}

// AskPerson returns the error of a gate of StageApproval that sends the
// person to url (an approval page, its path) to decide: the call answers
// confirm_required with message, for the person, and with url as its
// approvalUrl, which every door passes on in its own terms. Nothing ran.
func AskPerson(url, message string) error {
	e := newError(protocol.CodeConfirmRequired, message)
	e.approvalURL = url
	return e
}
