package site

import (
	"errors"
	"fmt"

	"github.com/affordances-go/affordances/protocol"
)

// Step 6, consent: whether a call may run now. It is decided here, once,
// for every door: an agent's JSON call, an MCP tool, a WebMCP tool, the
// inspector and the person's own form post reach the same checks in the
// same order. A door brings evidence (confirm: true, an approval's id, a
// proof of presence, the basis of a summary the person read); whether the
// person consented is judged here, never by the door.
//
// The order, which no door and no extension changes:
//
//  1. presence: the person acting in their own browser, on an action that
//     needs them (people-only, or one with approval) and about to run,
//     proves that it is them and not an agent driving the browser, where
//     a gate of [StagePresence] asks for it (a passkey's assertion);
//  2. confirmation: a confirm action the person has not confirmed stops
//     with its summary (confirm_required);
//  3. standing grant: an agent's call the person approved in advance (a
//     gate of [StageStanding] grants it) runs;
//  4. approval: an agent's call of an action with approval runs only on
//     the person's approval of exactly this call, which a gate of
//     [StageApproval] grants or asks the person for;
//  5. the gates of [StagePolicy], in their order, for a call the checks
//     above let through.

// consent is step 6 (see above). Nothing has run when it refuses.
func (c *call) consent() *Error {
	if e := c.coreConsent(); e != nil {
		return e
	}
	return c.runGates()
}

// coreConsent is the core's own part of step 6, checks 1 to 4.
func (c *call) coreConsent() *Error {
	person := c.personPresent()
	if c.asksPerson(person) {
		if e := c.proveThePerson(); e != nil {
			return e
		}
	}
	if c.act.meta.Expose != protocol.ExposeConfirm {
		return nil
	}
	needsApproval := c.act.summary.Approval && !person
	if c.confirm && !needsApproval {
		if c.confirmedBasis != "" {
			c.r.approved = &approvedCall{basis: c.confirmedBasis}
		}
		return nil
	}
	text := c.summary()
	if e := c.page.checkFault(c.r, c.before); e != nil {
		return e
	}
	if !person && !c.confirm && c.approvalID == "" && len(c.site.gates[StageStanding]) > 0 {
		k := c.consentOf(text)
		if e := c.standing(k); e != nil {
			return e
		}
		if k.granted != nil {
			c.r.approved = &approvedCall{basis: *k.granted, standing: true}
			return nil // the person approved calls like this one in advance
		}
		if needsApproval {
			return c.approveWith(k)
		}
	}
	if needsApproval {
		return c.approve(text, "")
	}
	e := newError(protocol.CodeConfirmRequired, text)
	e.basis = c.basis()
	return e
}

// runGates runs the gates of StagePolicy in their order, for a call the
// core's consent lets through.
func (c *call) runGates() *Error {
	gates := c.site.gates[StagePolicy]
	if len(gates) == 0 {
		return nil
	}
	k := c.consentOf("")
	for _, g := range gates {
		if e := c.runGate(g, k); e != nil {
			return e
		}
	}
	return nil
}

// consentOf is the call as a gate sees it, with the summary the person
// reads ("" where none is asked for).
func (c *call) consentOf(summary string) *Consent {
	k := &Consent{Page: c.r.URL.Path, Action: c.act.meta.Name, Input: c.in, Value: c.value, State: c.before,
		Summary: summary, Confirmed: c.confirm, Approval: c.approvalID, Proof: c.presence, ConfirmedBasis: c.confirmedBasis}
	if c.input != nil {
		k.Form = canonicalInput(c.input.identity())
	}
	if summary != "" {
		k.Basis = c.basis()
		k.Fields = inputFields(c.act.input, c.value)
	}
	return k
}

// runGate runs one gate: its error of this package's answers as it is;
// any other, or a panic, is internal and logged.
func (c *call) runGate(g Gate, k *Consent) *Error {
	err := c.gate(g, k)
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return c.site.failure(c.r.Context(), "a gate failed", err, "route", c.page.route, "action", c.act.meta.Name)
}

// gate runs one gate, turning a panic into an error.
func (c *call) gate(g Gate, k *Consent) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	return g(c.r, k)
}

// asksPerson reports whether this call asks the person for a proof: a
// people-only action, whoever posts it (an agent was refused it at step
// 2), and an action with approval that the person is about to run on
// their own form, on a site with a gate of StagePresence. The person's
// first post of such an action, not yet confirmed, is answered with its
// confirmation, whose form asks for the proof.
func (c *call) asksPerson(person bool) bool {
	if len(c.site.gates[StagePresence]) == 0 {
		return false
	}
	return c.act.meta.PeopleOnly || (person && c.act.summary.Approval && c.confirm)
}

// proveThePerson runs the gates of StagePresence for this call.
func (c *call) proveThePerson() *Error {
	k := c.consentOf("")
	for _, g := range c.site.gates[StagePresence] {
		if e := c.runGate(g, k); e != nil {
			return e
		}
	}
	return nil
}

// approve is step 6 for an action with approval called by an agent:
// nothing runs unless a gate of StageApproval grants the call, with the
// approval the person gave for exactly this call and summary; a gate that
// does not asks the person, with an error (AskPerson). reask, when set,
// says why the person is asked again: the gates then ask anew and grant
// nothing. A site with no such gate answers internal, and logs why: such
// an action never runs without the person.
func (c *call) approve(summary, reask string) *Error {
	k := c.consentOf(summary)
	if reask != "" {
		k.Reask, k.Approval = reask, ""
	}
	// The gates of StageStanding say why the call is beyond the person's
	// standing approval (Consent.Beyond), for the approval page; a grant
	// of theirs does not count here: the call brought an approval or
	// confirm: true, or ran already and was found beyond it.
	if e := c.standing(k); e != nil {
		return e
	}
	k.granted = nil
	return c.approveWith(k)
}

// approveWith runs the gates of StageApproval on k (see approve).
func (c *call) approveWith(k *Consent) *Error {
	gates := c.site.gates[StageApproval]
	if len(gates) == 0 {
		return c.noApprovals()
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

// standing runs the gates of StageStanding on k, until one grants the
// call (the person approved it in advance); a gate that does not may say
// why (k.Beyond).
func (c *call) standing(k *Consent) *Error {
	for _, g := range c.site.gates[StageStanding] {
		if e := c.runGate(g, k); e != nil {
			return e
		}
		if k.granted != nil {
			return nil
		}
	}
	return nil
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

// approvalChanged answers a call whose action found, where it ran, that
// the state is not the one the person approved: the state is loaded again
// and the person is asked again, about what is there now. Nothing ran.
func (c *call) approvalChanged() *Error {
	const why = "What the person approved changed before it ran, so nothing ran."
	st, err := c.page.phaseState(c.r)
	if err != nil {
		return c.page.loadFailure(c.r, err)
	}
	c.before = st
	c.r.approved = nil
	text := c.summary()
	if e := c.page.checkFault(c.r, st); e != nil {
		return e
	}
	if c.act.summary.Approval && !c.personPresent() {
		return c.approve(text, why)
	}
	e := newError(protocol.CodeConfirmRequired, why+" "+text)
	e.basis = c.basis()
	return e
}

// basis is what the summary was built from, as the input's
// [ApprovalBasis] tells it; "" when the input has none.
func (c *call) basis() (b string) {
	ab, ok := c.in.(ApprovalBasis)
	if !ok {
		return ""
	}
	defer func() {
		if p := recover(); p != nil {
			c.before.recordPanic(p)
			b = ""
		}
	}()
	return ab.Basis(c.r, c.before)
}

// summary is what a confirm action would do, for the approving person.
func (c *call) summary() (text string) {
	if s, ok := c.in.(Summarizer); ok {
		defer func() {
			if p := recover(); p != nil {
				c.before.recordPanic(p)
			}
		}()
		if text := s.Summary(c.r, c.before); text != "" {
			return text
		}
	}
	if d := c.act.meta.Description; d != "" {
		return "Confirm: " + d
	}
	return "Confirm " + c.act.meta.Name
}

// ApprovalBasis is implemented by the input of a confirm action whose
// summary is built from state that can change between the moment a person
// approves and the moment the action runs, such as the cart an order is
// placed from. Basis returns a short string that identifies that state (a
// digest of the cart's lines and total, a row version), computed from the
// same state as the summary.
//
// The site keeps the basis with what the person approved: with an
// approval on the site, with the confirmation page a person submits, or
// with the state a door (MCP) hands out while it asks the person. The
// action then reads the state again inside its own transaction, computes
// the basis of what it is about to act on with the same function, and
// calls [Request.CheckApproved]: if the two differ, nothing is written
// and the person is asked again with what is there now.
type ApprovalBasis interface {
	Basis(r *Request, st *State) string
}

// approvedCall is what the person approved for the call that runs.
type approvedCall struct {
	basis    string // the ApprovalBasis of the summary they read
	standing bool   // approved in advance, by a gate of StageStanding
}

// CheckApproved reports whether basis, computed by the action where it
// runs (inside its transaction, from rows it has locked), is the basis of
// the summary the person approved. It returns nil when they are equal, or
// when the call carries no approved basis (an action whose input has no
// [ApprovalBasis]); otherwise [ErrApprovalChanged], which the action
// returns after rolling back.
func (r *Request) CheckApproved(basis string) error {
	if r.approved == nil || r.approved.basis == "" || r.approved.basis == basis {
		return nil
	}
	return ErrApprovalChanged
}

// Standing reports whether the call runs on the person's standing
// approval rather than on an approval they gave for this call: the action
// checks the grant's limits where it writes.
func (r *Request) Standing() bool { return r.approved != nil && r.approved.standing }
