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
//     proves with their passkey that it is them and not an agent driving
//     the browser, when the site has a [Presence] and the person a passkey;
//  2. confirmation: a confirm action the person has not confirmed stops
//     with its summary (confirm_required);
//  3. standing grant: an agent's call the person approved in advance
//     ([StandingApprovals]) runs;
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
	if c.needsPresence(person) {
		if e := c.checkPresence(); e != nil {
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
	if !person && !c.confirm && c.approvalID == "" && c.coveredInAdvance(text) {
		return nil // the person approved calls like this one in advance
	}
	if needsApproval {
		return c.approve(text, "")
	}
	e := newError(protocol.CodeConfirmRequired, text)
	e.basis = c.basis()
	return e
}

// needsPresence reports whether this call asks the person for a proof of
// presence (when they have a passkey): a people-only action, whoever
// posts it (an agent was refused it at step 2), and an action with
// approval that the person is about to run on their own form. The
// person's first post of such an action, not yet confirmed, is answered
// with its confirmation, whose form asks for the proof.
func (c *call) needsPresence(person bool) bool {
	if c.site.opts.Presence == nil {
		return false
	}
	return c.act.meta.PeopleOnly || (person && c.act.summary.Approval && c.confirm)
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
		Summary: summary, Confirmed: c.confirm, Approval: c.approvalID}
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
