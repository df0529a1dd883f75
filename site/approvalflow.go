package site

import (
	"errors"
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
// person gave for exactly this call and summary. Every refusal is
// confirm_required with a message that says which, and (but for an
// approval still pending) the page of a new approval.
func (c *call) checkApproval(summary string) *Error {
	ctx := c.r.Context()
	store := c.site.opts.Approvals
	if c.approvalID == "" || !c.confirm {
		return c.askApproval(summary, "")
	}
	a, err := store.Get(ctx, c.approvalID)
	switch {
	case errors.Is(err, approval.ErrNotFound):
		return c.askApproval(summary, "There is no such approval.")
	case err != nil:
		c.site.opts.Logger.ErrorContext(ctx, "affordances: reading an approval", "approval", approval.ShortID(c.approvalID), "err", err)
		return newInternalError()
	}
	why, pending := a.Refusal(c.approvalFor(summary), time.Now())
	switch {
	case pending:
		e := newError(protocol.CodeConfirmRequired, "Waiting for the person's approval: "+summary)
		e.approvalURL = c.site.opts.ApprovalPath + a.ID
		return e
	case why != "":
		return c.askApproval(summary, why)
	}
	if err := store.Use(ctx, a.ID); err != nil {
		if errors.Is(err, approval.ErrDecided) {
			return c.askApproval(summary, "That approval was used already.")
		}
		c.site.opts.Logger.ErrorContext(ctx, "affordances: using an approval", "approval", approval.ShortID(a.ID), "err", err)
		return newInternalError()
	}
	c.r.approved = &approvedCall{basis: a.Basis}
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
// whose, with which credential, on which page, the action, the input's
// digest, and the summary and basis the person reads.
func (c *call) approvalFor(summary string) approval.Approval {
	return approval.Approval{Account: c.r.Caller.account(), Credential: c.r.Caller.ID, Page: c.r.URL.Path,
		Action: c.act.meta.Name, Input: approval.Digest(c.value), Summary: summary, Basis: c.basis()}
}

// askApproval issues a new pending approval for this call and answers
// confirm_required with its page; why, when set, says what was wrong with
// the approval the call brought.
func (c *call) askApproval(summary, why string) *Error {
	a := c.approvalFor(summary)
	a.ID, a.Agent, a.State, a.Expires = approval.NewID(), c.r.Caller.Label, approval.Pending, time.Now().Add(c.site.opts.ApprovalTTL)
	// The same call, asked again before the person decided: the same page.
	reused := false
	if r, ok := c.site.opts.Approvals.(approval.Reuser); ok {
		if p, err := r.Pending(c.r.Context(), a, time.Now()); err == nil {
			a, reused = p, true
		} else if !errors.Is(err, approval.ErrNotFound) {
			c.site.opts.Logger.ErrorContext(c.r.Context(), "affordances: finding a pending approval", "err", err)
		}
	}
	if !reused {
		if err := c.site.opts.Approvals.Create(c.r.Context(), a); err != nil {
			c.site.opts.Logger.ErrorContext(c.r.Context(), "affordances: storing an approval", "err", err)
			return newInternalError()
		}
	}
	// The message is for the person; how an agent proceeds (the
	// approvalUrl, the call again with the approval) is the protocol's,
	// and each door says it in its own terms.
	msg := summary
	if why != "" {
		msg = why + " Nothing ran. " + summary
	}
	e := newError(protocol.CodeConfirmRequired, msg)
	e.approvalURL = c.site.opts.ApprovalPath + a.ID
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
