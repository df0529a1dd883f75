package site

import (
	"errors"
	"fmt"
	"net/http"
	"runtime/debug"

	"github.com/affordances-go/affordances/internal/htmlform"
	"github.com/affordances-go/affordances/internal/validate"
	"github.com/affordances-go/affordances/protocol"
)

// The seven steps of the pipeline, in their order (see pipelineSteps).

// resolve is step 1: the page must exist for this caller (its Exists),
// then the action is found on its route. A page that is not there, an
// unknown name and an action hidden from this caller get the same code.
func (c *call) resolve() *Error {
	if err := c.page.exists(c.r); err != nil {
		return c.page.loadFailure(c.r, err)
	}
	a := c.page.byName[c.name]
	if a == nil || !a.visible(c.r) {
		return newError(protocol.CodeNotFound, "this page has no such action")
	}
	c.act = a
	return nil
}

// authorize is step 2: a rejected bearer token, the Origin rule (see
// [Site.CheckOrigin]), expose against the caller, an agent's call of a
// people-only action ([Action.PeopleOnly]), then the caller's scopes
// (Caller.Scopes), before the rate limit counts the call.
func (c *call) authorize() *Error {
	if c.authErr != nil {
		return c.authErr
	}
	if e := c.site.checkOrigin(c.provenance.origin, c.r.Caller); e != nil {
		return e
	}
	if c.act.meta.Expose.NeedsSession() && !c.r.Caller.SignedIn {
		return newError(protocol.CodeUnauthorized, c.site.opts.SignInReason)
	}
	if e := c.peopleOnly(); e != nil {
		return e
	}
	if !c.r.Caller.allows(c.act.meta.Name) {
		return newError(protocol.CodeUnauthorized, scopeReason(c.act.meta.Name)).withStatus(http.StatusForbidden)
	}
	return nil
}

// rateLimit is step 3: count the call against the caller's limit for this
// route and action, and against the client's address too for an action
// that asks for it (Action.LimitByAddress).
func (c *call) rateLimit() *Error {
	if e := c.limit(c.callerKey()); e != nil {
		return e
	}
	if c.act.meta.LimitByAddress && c.r.Caller.ID != "" {
		return c.limit("addr:" + c.provenance.addr)
	}
	return nil
}

// limit counts the call under one key.
func (c *call) limit(who string) *Error {
	l := c.site.opts.Limits.Default
	if c.act.meta.Limit != nil {
		l = *c.act.meta.Limit
	}
	e, fault := c.site.count(c.r.Context(), who+"\x00"+c.page.route+"\x00"+c.act.meta.Name, l, c.page.route, c.act.meta.Name)
	c.limiterFault = c.limiterFault || fault
	return e
}

// callerKey identifies the caller for rate limits: the person's account
// when the authenticator names one (so that every session and token of a
// person share one budget, and minting a token buys no more calls), else
// the caller's id, else its address.
func (c *call) callerKey() string {
	switch {
	case c.r.Caller.Account != "":
		return "acct:" + c.r.Caller.Account
	case c.r.Caller.ID != "":
		return "id:" + c.r.Caller.ID
	case c.r.Caller.Agent != "":
		return "agent:" + c.r.Caller.Agent // one bucket per verified agent, wherever it calls from
	}
	return "addr:" + c.provenance.addr
}

// validate is step 4: check the input against the action's schema and
// decode it into the handler's type. Every issue is reported, not the
// first one.
func (c *call) validate() *Error {
	if c.invalid != "" {
		return newError(protocol.CodeInvalidInput, c.invalid)
	}
	var v any
	var raw []byte
	var issues []protocol.Issue
	if c.input != nil {
		v, raw, issues = c.input.value(c.act.input)
	} else {
		v, raw = map[string]any{}, []byte("{}") // an omitted input is an empty object
	}
	c.value = v
	if len(issues) == 0 {
		issues = c.act.check(v)
	}
	if len(issues) > 0 {
		return newError(protocol.CodeInvalidInput, "the input does not match the action's schema", issues...)
	}
	in, err := c.act.decodeInput(raw, v)
	if err != nil {
		return newError(protocol.CodeInvalidInput, "the input does not match the action's types", validate.DecodeIssues(err)...)
	}
	c.in = in
	return c.validateInput()
}

// validateInput runs the input's own rules, when its type has them.
func (c *call) validateInput() *Error {
	v, ok := c.in.(InputValidator)
	if !ok {
		return nil
	}
	err := v.Validate()
	if err == nil {
		return nil
	}
	var issues []protocol.Issue
	collectIssues(err, &issues)
	if len(issues) == 0 {
		c.site.opts.Logger.ErrorContext(c.r.Context(), "affordances: an input's Validate failed", "route", c.page.route,
			"action", c.act.meta.Name, "err", err)
		return newInternalError()
	}
	return newError(protocol.CodeInvalidInput, "the input was not accepted", issues...)
}

// checkGuard is step 5: load the page's state (this load is the "before"
// of the delta) and evaluate the action's guard, then the input's own
// guard when it has one. On a page with entity loaders, only what the
// guards read is loaded here (and everything when the action declares no
// Effects, for the delta's comparison). A fault of the guard's code on the state (a
// wrongly typed entity, a panic) is internal.
func (c *call) checkGuard() *Error {
	st, err := c.page.phaseState(c.r)
	if err != nil {
		return c.page.loadFailure(c.r, err)
	}
	c.before = st
	if c.page.foundInTransaction() && st.lazy.page != nil {
		if err := st.loadAll(); err != nil {
			return c.page.loadFailure(c.r, err)
		}
	}
	if !c.act.cookiesKept(c.r) {
		return newError(protocol.CodeUnavailable, c.site.opts.NoCookiesReason)
	}
	ok, reason := c.act.guard(c.r, st)
	if ok {
		ok, reason = c.inputGuard(st)
	}
	if len(c.act.effects) == 0 {
		st.loadAll() // the delta compares every entity before and after
	}
	if e := c.page.checkFault(c.r, st); e != nil {
		return e
	}
	if !ok {
		return newError(protocol.CodeUnavailable, reason)
	}
	return nil
}

// inputGuard evaluates the input's own guard, when its type has one.
func (c *call) inputGuard(st *State) (ok bool, reason string) {
	g, isGuard := c.in.(InputGuard)
	if !isGuard {
		return true, ""
	}
	defer func() {
		if p := recover(); p != nil {
			st.recordPanic(p)
			ok, reason = false, ""
		}
	}()
	ok, reason = g.Guard(c.r, st)
	if !ok && reason == "" {
		reason = "not available for this input"
	}
	return ok, reason
}

// run is step 7: run the action, load the state again, and build the
// delta. An action that declines with an [Error] answers with it; any
// other error, or a panic, is internal and logged.
func (c *call) run() (*outcome, *Error) {
	beforeActions := c.page.describe(c.r, c.before)
	if e := c.page.checkFault(c.r, c.before); e != nil {
		return nil, e
	}
	out, msg, redirect, err := c.invoke()
	if err != nil {
		if errors.Is(err, ErrApprovalChanged) {
			return nil, c.approvalChanged()
		}
		if errors.Is(err, ErrOutsideGrant) && c.r.Standing() {
			return nil, c.outsideGrant()
		}
		if e := handlerError(err); e != nil {
			return nil, e
		}
		return nil, c.site.failure(c.r.Context(), "action failed", err, "route", c.page.route, "action", c.act.meta.Name)
	}
	if redirect != "" && !htmlform.LocalPath(redirect) {
		// The action ran; where it sends the person is not a path of this
		// site. No door follows it: the form goes back to the page, an
		// agent gets no redirect.
		c.site.opts.Logger.ErrorContext(c.r.Context(), "affordances: an action's redirect is not a local path; dropped",
			"route", c.page.route, "action", c.act.meta.Name)
		redirect = ""
	}
	d := protocol.Delta{OK: true, Message: msg, Redirect: redirect}
	if c.act.hasOutput {
		d.Output = out
	}
	after, err := c.page.afterState(c.r, c.before, c.act.effects)
	if err == nil && len(c.act.effects) > 0 {
		// Entity by entity: a subject the action deleted shows here.
		for _, k := range c.act.effects {
			after.entity(k)
		}
		err = after.loadErr()
	}
	switch {
	case errors.Is(err, ErrNotFound):
		return c.gone(d, beforeActions), nil
	case err != nil:
		// The action ran; say so, without the parts that need the new state.
		c.site.logFailure(c.r.Context(), "reloading state after an action", err, "route", c.page.route, "action", c.act.meta.Name)
		return &outcome{delta: d, redirect: redirect}, nil
	}
	d.Changed = changedEntities(c.act.effects, c.before, after)
	afterActions := c.page.describe(c.r, after)
	if err := after.loadErr(); err != nil {
		if errors.Is(err, ErrNotFound) {
			return c.gone(d, beforeActions), nil
		}
		c.site.logFailure(c.r.Context(), "reloading state after an action", err, "route", c.page.route, "action", c.act.meta.Name)
		return &outcome{delta: protocol.Delta{OK: true, Message: msg, Redirect: redirect, Output: d.Output}, redirect: redirect}, nil
	}
	if err := after.fault(); err != nil {
		// The action ran; the new action list could not be computed.
		c.site.opts.Logger.ErrorContext(c.r.Context(), "affordances: the site's code failed on the page state after an action",
			"route", c.page.route, "action", c.act.meta.Name, "err", err)
		return &outcome{delta: d, redirect: redirect}, nil
	}
	d.ActionsAdded, d.ActionsRemoved = actionChanges(beforeActions, afterActions)
	return &outcome{delta: d, redirect: redirect}, nil
}

// gone is the outcome of an action after which its page no longer exists
// (it deleted the page's own subject, as a delete does): no guard runs on
// a state that is not there, every entity the page showed and every
// action are removed, the redirect is kept, and nothing is logged, since
// nothing is wrong.
func (c *call) gone(d protocol.Delta, beforeActions []protocol.ActionDescriptor) *outcome {
	d.Changed = map[string]any{}
	for _, k := range c.act.effects {
		d.Changed[k] = nil
	}
	for k := range c.before.entities {
		d.Changed[k] = nil
	}
	d.ActionsAdded, d.ActionsRemoved = nil, nil
	for _, a := range beforeActions {
		d.ActionsRemoved = append(d.ActionsRemoved, a.Name)
	}
	return &outcome{delta: d, redirect: d.Redirect}
}

// invoke calls the handler, turning a panic into an error.
func (c *call) invoke() (out any, msg, redirect string, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v\n%s", p, debug.Stack())
		}
	}()
	return c.act.run(c.r, c.in)
}
