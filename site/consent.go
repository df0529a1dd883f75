package site

import (
	"errors"
	"net/http"

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
//     the person's approval of exactly this call ([Approvals]);
//  5. the extensions' gates ([Extender.Gate]), in their order, for a call
//     the checks above let through.

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
		return c.checkApproval(text)
	}
	e := newError(protocol.CodeConfirmRequired, text)
	e.basis = c.basis()
	return e
}

// personPresent reports whether the call is the person's own act rather
// than an agent's: an HTML form posted as a navigation in the person's own
// signed-in cookie session with this site's Origin (which step 2 has
// checked for every cookie call): [ActorPerson], signed in. Who calls
// decides, never the body's format: a form posted with a bearer token is
// an agent's call, under exactly the rules of an agent's JSON call, and
// every other door (JSON, MCP, the inspector) is an agent's.
func (c *call) personPresent() bool {
	return c.r.Actor() == ActorPerson && c.r.Caller.SignedIn
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
