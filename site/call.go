package site

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"time"

	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site/ratelimit"
)

// call is one call going through the pipeline. Each step reads what the
// steps before it left here and returns an *Error to stop the call.
type call struct {
	site      *Site
	page      *Page
	r         *Request
	authErr   *Error // a rejected bearer token, answered by the authorization step
	transport Transport
	started   time.Time
	caller    Caller // who made the call, before an action changed r.Caller

	name       string // the action's name, as the call gave it
	confirm    bool   // confirm: true was sent
	approvalID string // the approval the call brings, for an action with approval
	idemKey    string // the call's Idempotency-Key, "" for none

	idem   *IdempotencyClaim // the key this call holds
	replay *outcome          // what the key's first call produced, to answer again

	// fromPage is set by the form door: the call was posted by an HTML
	// form. It is no credential by itself: see [call.personPresent].
	fromPage bool
	// confirmedBasis is the basis of the summary the person confirmed,
	// brought back by the door: the confirmation page's hidden field
	// (FormBasisField), or the signed state of the MCP door that asked.
	// It only ever makes the action's check stricter.
	confirmedBasis string

	// What the transport decoded, for the validation step.
	inputRaw   []byte              // the JSON of the input (agents)
	inputValue any                 // the parsed input (agents), or nil when omitted
	form       map[string][]string // the posted form values (forms)
	badField   string              // a call field of the wrong type: the message

	act    *action
	in     any    // the decoded, validated input
	before *State // the state the guard saw: the "before" of the delta

	// For the site's Observer: the steps that ran, and a limiter fault.
	steps        []Step // allocated only when the site is observed
	limiterFault bool
}

// newCall finds the caller and starts a call. A rejected bearer token is
// kept for the authorization step, so that the order of the pipeline
// decides which failure a caller sees; any other authenticator error
// stops the call as internal.
func (s *Site) newCall(hr *http.Request, p *Page, transport Transport) (*call, *Error) {
	c := &call{site: s, page: p, transport: transport, started: time.Now(), idemKey: idempotencyKeyOf(hr)}
	r, e := s.authenticate(hr)
	switch {
	case e == nil:
		c.r = r
	case e.badToken:
		c.authErr = e
		c.r = &Request{Request: withoutAffordancesQuery(hr), Caller: Caller{Mode: protocol.AuthBearer}}
	default:
		c.r = &Request{Request: hr}
	}
	c.caller = c.r.Caller
	if e != nil && !e.badToken {
		return c, e
	}
	return c, nil
}

// execute runs one call for a transport: find the caller, decode the body
// with the transport's decoder, run the pipeline. A failure is audited
// here; on success the headers the action set are added to the response,
// and the transport audits the call with the status it answers.
func (s *Site) execute(w http.ResponseWriter, hr *http.Request, p *Page, transport Transport, decode func(*call) *Error) (*call, *outcome, *Error) {
	c, e := s.newCall(hr, p, transport)
	if e == nil {
		t := c.stepStart()
		e = decode(c)
		c.stepDone(StepDecode, t)
	}
	var out *outcome
	if e == nil {
		out, e = c.pipeline()
	}
	c.settleIdempotency(out, e != nil)
	if out != nil && out.replayed {
		w.Header().Set(ReplayedHeader, "true")
	}
	if e != nil {
		e.setHeaders(w.Header())
		c.auditCall(e.Status(), string(e.code))
		return c, nil, e
	}
	c.r.flushHeader(w)
	return c, out, nil
}

// outcome is what a successful call produced.
type outcome struct {
	delta    protocol.Delta
	redirect string
	replayed bool   // the stored outcome of an idempotency key's first call
	encoded  []byte // the delta as JSON, when it was encoded for its key
}

// pipeline runs the protocol's seven steps in order and stops at the first
// failure. Every transport goes through it.
func (c *call) pipeline() (*outcome, *Error) {
	for _, step := range pipelineSteps {
		if step.name == StepIdempotency && c.idemKey == "" {
			continue // a call without a key: the extension's step is not there
		}
		t := c.stepStart()
		e := step.run(c)
		c.stepDone(step.name, t)
		if e != nil {
			return nil, e
		}
		if c.replay != nil {
			return c.replay, nil // the key's first call ran already
		}
	}
	t := c.stepStart()
	out, e := c.run()
	c.stepDone(StepRun, t)
	return out, e
}

// pipelineSteps are steps 1 to 6, in the protocol's order; step 7, run,
// follows them.
var pipelineSteps = [...]struct {
	name string
	run  func(*call) *Error
}{
	{StepResolve, (*call).resolve},
	{StepAuthorize, (*call).authorize},
	{StepRateLimit, (*call).rateLimit},
	{StepIdempotency, (*call).idempotency},
	{StepValidate, (*call).validate},
	{StepGuard, (*call).checkGuard},
	{StepConfirm, (*call).requireConfirmation},
}

// resolve is step 1: find the action on the page's route. An unknown name
// and an action hidden from this caller get the same answer.
func (c *call) resolve() *Error {
	a := c.page.byName[c.name]
	if a == nil || !a.visible(c.r) {
		return newError(protocol.CodeNotFound, "this page has no such action")
	}
	c.act = a
	return nil
}

// authorize is step 2: a rejected bearer token, the Origin rule (see
// [Site.CheckOrigin]), then expose against the caller.
func (c *call) authorize() *Error {
	if c.authErr != nil {
		return c.authErr
	}
	if e := c.site.checkOrigin(c.r.Request, c.r.Caller); e != nil {
		return e
	}
	if c.act.meta.Expose.NeedsSession() && !c.r.Caller.SignedIn {
		return newError(protocol.CodeUnauthorized, c.site.opts.SignInReason)
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
		return c.limit("addr:" + c.site.clientAddr(c.r.Request))
	}
	return nil
}

// limit counts the call under one key.
func (c *call) limit(who string) *Error {
	s := c.site
	l := s.opts.DefaultLimit
	if c.act.meta.Limit != nil {
		l = *c.act.meta.Limit
	}
	key := who + "\x00" + c.page.route + "\x00" + c.act.meta.Name
	d, err := s.opts.Limiter.Allow(c.r.Context(), key, l)
	if err != nil {
		s.limiterFaults.Add(1)
		c.limiterFault = true
		if n, ok := s.faultLog.due(time.Now()); ok {
			s.opts.Logger.WarnContext(c.r.Context(), "affordances: rate limiter failed", "route", c.page.route,
				"action", c.act.meta.Name, "fail_closed", s.opts.LimiterFailClosed, "faults_since_last_report", n, "err", err)
		}
		if !s.opts.LimiterFailClosed {
			return nil
		}
		d = ratelimit.Decision{RetryAfter: time.Second}
	}
	if d.Allowed {
		return nil
	}
	e := newError(protocol.CodeRateLimited, fmt.Sprintf("too many calls; try again in %d s", d.RetryAfterSeconds()))
	e.retryAfter = d.RetryAfterSeconds()
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
	}
	return "addr:" + c.site.clientAddr(c.r.Request)
}

// validate is step 4: check the input against the action's schema and
// decode it into the handler's type. Every issue is reported, not the
// first one.
func (c *call) validate() *Error {
	if c.badField != "" {
		return newError(protocol.CodeInvalidInput, c.badField)
	}
	var issues []protocol.Issue
	if c.form != nil {
		c.inputValue, issues = formInput(c.act.input, c.form)
	} else if c.inputRaw == nil {
		c.inputValue = map[string]any{} // an omitted input is an empty object
		c.inputRaw = []byte("{}")
	}
	if len(issues) == 0 {
		issues = c.act.check(c.inputValue)
	}
	if len(issues) > 0 {
		return newError(protocol.CodeInvalidInput, "the input does not match the action's schema", issues...)
	}
	in, err := c.act.decodeInput(c.inputRaw, c.inputValue)
	if err != nil {
		return newError(protocol.CodeInvalidInput, "the input does not match the action's types", decodeIssues(err)...)
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
	if !c.act.cookiesKept(c.r) {
		return newError(protocol.CodeUnavailable, c.site.opts.NoCookiesReason)
	}
	ok, reason := c.act.guard(c.r, st)
	if ok {
		ok, reason = c.inputGuard(st)
	}
	if len(c.act.meta.Effects) == 0 {
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

// personPresent reports whether the call is the person's own act rather
// than an agent's: an HTML form posted in the person's own signed-in cookie
// session with this site's Origin (which step 2 has checked for every
// cookie call). Who calls decides, never the body's format: a form posted
// with a bearer token is an agent's call, under exactly the rules of an
// agent's JSON call, and every other door (JSON, MCP, the inspector) is an
// agent's.
func (c *call) personPresent() bool {
	return c.fromPage && c.r.Caller.Mode == protocol.AuthCookie && c.r.Caller.SignedIn
}

// requireConfirmation is step 6: a confirm action without confirm: true
// stops here with a summary for the person who must approve it. Nothing
// has run. For an action with approval, an agent's call runs only with
// the person's approval of exactly this call (checkApproval); the person
// confirms their own form post on the confirmation page.
func (c *call) requireConfirmation() *Error {
	if c.act.meta.Expose != protocol.ExposeConfirm {
		return nil
	}
	person := c.personPresent()
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
	if needsApproval {
		return c.checkApproval(text)
	}
	e := newError(protocol.CodeConfirmRequired, text)
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
		if e := handlerError(err); e != nil {
			return nil, e
		}
		c.site.opts.Logger.ErrorContext(c.r.Context(), "affordances: action failed", "route", c.page.route,
			"action", c.act.meta.Name, "err", err)
		return nil, newInternalError()
	}
	if redirect != "" && !isLocalPath(redirect) {
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
	after, err := c.page.afterState(c.r, c.before, c.act.meta.Effects)
	switch {
	case errors.Is(err, ErrNotFound):
		after = &State{} // the page is gone: every entity was removed
	case err != nil:
		// The action ran; say so, without the parts that need the new state.
		c.site.opts.Logger.ErrorContext(c.r.Context(), "affordances: reloading state after an action", "route", c.page.route,
			"action", c.act.meta.Name, "err", err)
		return &outcome{delta: d, redirect: redirect}, nil
	}
	d.Changed = changedEntities(c.act.meta.Effects, c.before, after)
	afterActions := c.page.describe(c.r, after)
	if err := after.loadErr(); err != nil && !errors.Is(err, ErrNotFound) {
		c.site.opts.Logger.ErrorContext(c.r.Context(), "affordances: reloading state after an action", "route", c.page.route,
			"action", c.act.meta.Name, "err", err)
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

// invoke calls the handler, turning a panic into an error.
func (c *call) invoke() (out any, msg, redirect string, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v\n%s", p, debug.Stack())
		}
	}()
	return c.act.run(c.r, c.in)
}

// auditCall logs the one record every call leaves, by any transport, and
// tells the site's Observer.
func (c *call) auditCall(status int, code string) {
	c.observe(status, code)
	action := c.name
	if len(action) > 64 {
		action = action[:64] // an unknown name is the caller's text: bound it
	}
	c.site.opts.AuditLogger.LogAttrs(context.WithoutCancel(c.r.Context()), slog.LevelInfo, "affordances call",
		slog.String("route", c.page.route),
		slog.String("page", c.r.URL.Path),
		slog.String("action", action),
		slog.String("caller", c.caller.ID),
		slog.String("auth", string(callerKind(c.caller.Mode))),
		slog.Bool("confirm", c.confirm),
		slog.String("transport", string(c.transport)),
		slog.String("result", code),
		slog.Int("status", status),
		slog.Duration("duration", time.Since(c.started)),
	)
}
