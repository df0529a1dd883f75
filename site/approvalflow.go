package site

import (
	"net/http"
	"time"

	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site/approval"
)

// Approvals, an extension of v0, are described in package site/approval,
// which holds their data, their store and the page where the person
// decides; this file is their part of the pipeline (step 6).

// checkApproval is step 6 for an action with approval, called by an agent:
// nothing runs unless the call brings, with confirm: true, an approval the
// person gave for exactly this call and summary (the site's approval.Desk
// decides). Every refusal is confirm_required with a message that says
// which, and the page of an approval: a new one, or the one still pending.
func (c *call) checkApproval(summary string) *Error {
	used, ask, err := c.site.approvals.Admit(c.r.Context(), c.approvalID, c.confirm, c.approvalFor(summary), time.Now())
	if err != nil {
		c.site.opts.Logger.ErrorContext(c.r.Context(), "affordances: checking an approval", "err", err)
		return newInternalError()
	}
	if ask != nil {
		return c.asked(summary, ask)
	}
	c.r.approved = &approvedCall{basis: used.Basis}
	return nil
}

// coveredInAdvance asks the site's StandingApprovals whether the person
// approved this call, whose summary the person would read, in advance,
// and marks the call so when they did.
func (c *call) coveredInAdvance(summary string) bool {
	if c.site.opts.Standing == nil {
		return false
	}
	basis := c.basis()
	if !c.site.opts.Standing.Covers(c.r, c.act.meta.Name, c.in, summary, basis) {
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
// page, the action, the input's digest, and the summary and basis the
// person reads.
func (c *call) approvalFor(summary string) approval.Approval {
	return approval.Approval{Account: c.r.Caller.account(), Credential: c.r.Caller.ID, Agent: c.r.Caller.Label,
		Page: c.r.URL.Path, Action: c.act.meta.Name, Input: approval.Digest(c.value), Summary: summary, Basis: c.basis()}
}

// askApproval asks the person for an approval of this call and answers
// confirm_required with its page; why, when set, says what was wrong with
// the approval the call brought.
func (c *call) askApproval(summary, why string) *Error {
	ask, err := c.site.approvals.Ask(c.r.Context(), c.approvalFor(summary), why, time.Now())
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
func (c *call) asked(summary string, ask *approval.Ask) *Error {
	msg := summary
	switch {
	case ask.Waiting:
		msg = "Waiting for the person's approval: " + summary
	case ask.Why != "":
		msg = ask.Why + " Nothing ran. " + summary
	}
	e := newError(protocol.CodeConfirmRequired, msg)
	e.approvalURL = c.site.opts.ApprovalPath + ask.ID
	return e
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

// ApprovalData is what the approval page is rendered from; see
// [approval.PageData].
type ApprovalData = approval.PageData

// approvalPage is the site's approval pages (package site/approval), fed
// with the site's authenticator, its Origin rule and its pages' states.
func (s *Site) approvalPage() *approval.Page {
	return &approval.Page{
		Store: s.opts.Approvals, View: s.opts.ApprovalView, Logger: s.opts.Logger,
		Visitor: func(hr *http.Request) (approval.Visitor, error) {
			r, e := s.authenticate(hr)
			if e != nil {
				return approval.Visitor{}, e
			}
			return approval.Visitor{SignedIn: r.Caller.SignedIn, Session: r.Caller.Mode == protocol.AuthCookie,
				Account: r.Caller.account(), Request: r.Request}, nil
		},
		SignIn:     func(back string) string { return WithReturn(s.opts.SignInURL, back) },
		SameOrigin: s.originAllowed,
		PageState:  s.approvedPageState,
	}
}

// approvedPageState loads the page an approval is for, as the person
// would see it, or nil.
func (s *Site) approvedPageState(hr *http.Request, path string) (any, map[string]any) {
	p, phr := s.route(hr, path, http.MethodGet)
	if p == nil {
		return nil, nil
	}
	pr, e := s.authenticate(phr)
	if e != nil {
		return nil, nil
	}
	st, le := p.loadState(pr)
	if le != nil || st == nil {
		return nil, nil
	}
	st.loadAll()
	return st, st.entities
}
