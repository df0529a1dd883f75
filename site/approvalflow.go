package site

import "github.com/affordances-go/affordances/protocol"

// Approvals, an extension of v0, are an extension's: their data, their
// stores and the page where the person decides, plugged in as the site's
// [Approvals]. This file is their part of the pipeline (step 6).

// checkApproval is step 6 for an action with approval, called by an agent:
// nothing runs unless the call brings, with confirm: true, an approval the
// person gave for exactly this call and summary (the site's [Approvals]
// decides). Every refusal is confirm_required with a message that says
// which, and the page of an approval: a new one, or the one still pending.
func (c *call) checkApproval(summary string) *Error {
	if c.site.approvals == nil {
		return c.noApprovals()
	}
	basis, ask, err := c.site.approvals.Admit(c.r.Context(), c.approvalFor(summary), c.approvalID, c.confirm)
	if err != nil {
		c.site.opts.Logger.ErrorContext(c.r.Context(), "affordances: checking an approval", "err", err)
		return newInternalError()
	}
	if ask != nil {
		return c.asked(summary, ask)
	}
	c.r.approved = &approvedCall{basis: basis}
	return nil
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
		return c.askApproval(text, why)
	}
	e := newError(protocol.CodeConfirmRequired, why+" "+text)
	e.basis = c.basis()
	return e
}

// approvalFor describes this call as an approval asked for it would:
// whose, with which credential (and its label, for the person), on which
// page, the action, the input, and the summary and basis the person
// reads.
func (c *call) approvalFor(summary string) ApprovalCall {
	a := ApprovalCall{Account: c.r.Caller.AccountID(), Credential: c.r.Caller.ID, Agent: c.r.Caller.Label,
		Page: c.r.URL.Path, Action: c.act.meta.Name, Input: c.value, Summary: summary, Basis: c.basis(),
		Fields: inputFields(c.act.input, c.value), SignedBy: c.r.Caller.Agent}
	if sr, ok := c.site.opts.Grants.Standing.(StandingReasons); ok {
		a.Why = sr.Beyond(c.r, c.act.meta.Name, c.in)
	}
	return a
}

// askApproval asks the person for an approval of this call and answers
// confirm_required with its page; why, when set, says what was wrong with
// the approval the call brought.
func (c *call) askApproval(summary, why string) *Error {
	if c.site.approvals == nil {
		return c.noApprovals()
	}
	ask, err := c.site.approvals.Ask(c.r.Context(), c.approvalFor(summary), why)
	if err != nil {
		c.site.opts.Logger.ErrorContext(c.r.Context(), "affordances: asking for an approval", "err", err)
		return newInternalError()
	}
	return c.asked(summary, ask)
}

// asked is the answer to a call sent to an approval page. The message is
// for the person; how an agent proceeds (the approvalUrl, the call again
// with the approval) is the protocol's, and each door says it in its own
// terms.
func (c *call) asked(summary string, ask *ApprovalAsk) *Error {
	msg := summary
	switch {
	case ask.Waiting:
		msg = "Waiting for the person's approval: " + summary
	case ask.Why != "":
		msg = ask.Why + " Nothing ran. " + summary
	}
	e := newError(protocol.CodeConfirmRequired, msg)
	e.approvalURL = ask.URL
	return e
}

// noApprovals answers a call that needs the person's approval on a site
// that has no [Approvals] to ask: nothing runs, and the log says why.
func (c *call) noApprovals() *Error {
	c.site.opts.Logger.ErrorContext(c.r.Context(), "affordances: the action needs the person's approval, and the site has no Approvals: plug them in (docs/architecture.md)",
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
