package site

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strconv"
	"time"

	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site/ratelimit"
)

// Transport names the way a call reached the site, for the audit log.
const (
	transportAgent = "agent"
	transportForm  = "form"
)

// call is one call going through the pipeline. Each step reads what the
// steps before it left here and returns a *failure to stop the call.
type call struct {
	site      *Site
	page      *Page
	r         *Request
	authErr   error // ErrBadToken when the bearer token was rejected
	transport string
	started   time.Time
	caller    Caller // who made the call, before an action changed r.Caller

	name    string // the action's name, as the call gave it
	confirm bool   // confirm: true was sent

	// What the transport decoded, for the validation step.
	inputRaw      []byte              // the JSON of the input (agents)
	inputValue    any                 // the parsed input (agents), or nil when omitted
	form          map[string][]string // the posted form values (forms)
	confirmBadTyp bool                // confirm was present but not a boolean

	act    *action
	in     any    // the decoded, validated input
	before *State // the state the guard saw: the "before" of the delta
}

// failure stops a call: the delta's error and the HTTP status.
type failure struct {
	status     int
	err        protocol.Error
	retryAfter int // seconds, for rate_limited
}

func fail(status int, code protocol.ErrorCode, msg string, issues ...protocol.Issue) *failure {
	return &failure{status: status, err: protocol.Error{Code: code, Message: msg, Issues: issues}}
}

// errInternal is the failure of anything unexpected: generic, with the
// details in the log.
func errInternal() *failure {
	return fail(http.StatusInternalServerError, protocol.CodeInternal, "the server could not complete the request")
}

// newCall authenticates the request and starts a call. A rejected bearer
// token is kept for the authorization step, so that the order of the
// pipeline decides which failure a caller sees; any other authenticator
// error is internal.
func (s *Site) newCall(w http.ResponseWriter, hr *http.Request, p *Page, transport string) (*call, *failure) {
	c := &call{site: s, page: p, transport: transport, started: time.Now()}
	r, err := s.request(hr)
	switch {
	case err == nil:
		c.r = r
		c.caller = r.Caller
	case errors.Is(err, ErrBadToken):
		c.authErr = err
		c.r = &Request{Request: withoutAffordancesQuery(hr), Caller: Caller{Mode: AuthBearer}}
		c.caller = c.r.Caller
	default:
		s.log.ErrorContext(hr.Context(), "affordances: authenticator failed", "path", hr.URL.Path, "err", err)
		c.r = &Request{Request: hr, Caller: Caller{Mode: AuthAnonymous}}
		c.caller = c.r.Caller
		return c, errInternal()
	}
	return c, nil
}

// execute runs one call for a transport: authenticate, decode the body
// with the transport's decoder, run the pipeline. A failure is audited
// here, with Retry-After set when it applies; on success the headers the
// action set are added to the response, and the transport audits the call
// with the status it answers.
func (s *Site) execute(w http.ResponseWriter, hr *http.Request, p *Page, transport string, decode func(*call) *failure) (*call, *outcome, *failure) {
	c, f := s.newCall(w, hr, p, transport)
	if f == nil {
		f = decode(c)
	}
	var out *outcome
	if f == nil {
		out, f = c.pipeline()
	}
	if f != nil {
		f.setRetryAfter(w.Header())
		c.auditCall(f.status, string(f.err.Code))
		return c, nil, f
	}
	c.r.flushHeader(w)
	return c, out, nil
}

// outcome is what a successful call produced.
type outcome struct {
	delta    protocol.Delta
	redirect string
}

// pipeline runs the protocol's seven steps in order and stops at the first
// failure. Every transport goes through it.
func (c *call) pipeline() (*outcome, *failure) {
	if f := c.resolve(); f != nil {
		return nil, f
	}
	if f := c.authorize(); f != nil {
		return nil, f
	}
	if f := c.rateLimit(); f != nil {
		return nil, f
	}
	if f := c.validate(); f != nil {
		return nil, f
	}
	if f := c.checkGuard(); f != nil {
		return nil, f
	}
	if f := c.requireConfirmation(); f != nil {
		return nil, f
	}
	return c.run()
}

// resolve is step 1: find the action on the page's route. An unknown name
// and an action hidden from this caller get the same answer.
func (c *call) resolve() *failure {
	a := c.page.byName[c.name]
	if a == nil || !a.visible(c.r) {
		return fail(http.StatusNotFound, protocol.CodeNotFound, "this page has no such action")
	}
	c.act = a
	return nil
}

// authorize is step 2: a rejected bearer token, the Origin rule for calls
// that ride on cookies, then expose against the caller.
func (c *call) authorize() *failure {
	if c.authErr != nil {
		return fail(http.StatusUnauthorized, protocol.CodeUnauthorized, "the bearer token was not accepted")
	}
	if c.r.Caller.Mode == AuthCookie && !c.site.originAllowed(c.r.Request) {
		return fail(http.StatusForbidden, protocol.CodeUnauthorized,
			"a call authenticated by cookie must carry this site's Origin header")
	}
	if c.act.meta.Expose.NeedsSession() && !c.r.Caller.SignedIn {
		return fail(http.StatusUnauthorized, protocol.CodeUnauthorized, c.site.signInReason)
	}
	return nil
}

// rateLimit is step 3: count the call against the caller's limit for this
// route and action.
func (c *call) rateLimit() *failure {
	s := c.site
	l := s.defaultLimit
	if c.act.meta.Limit != nil {
		l = *c.act.meta.Limit
	}
	key := c.callerKey() + "\x00" + c.page.route + "\x00" + c.act.meta.Name
	d, err := s.limiter.Allow(c.r.Context(), key, l)
	if err != nil {
		s.limiterFaults.Add(1)
		s.log.WarnContext(c.r.Context(), "affordances: rate limiter failed", "route", c.page.route,
			"action", c.act.meta.Name, "fail_closed", s.opts.LimiterFailClosed, "err", err)
		if !s.opts.LimiterFailClosed {
			return nil
		}
		d = ratelimit.Decision{RetryAfter: time.Second}
	}
	if d.Allowed {
		return nil
	}
	f := fail(http.StatusTooManyRequests, protocol.CodeRateLimited,
		fmt.Sprintf("too many calls; try again in %d s", d.RetryAfterSeconds()))
	f.retryAfter = d.RetryAfterSeconds()
	return f
}

// callerKey identifies the caller for rate limits: its id, or its address
// when it has none.
func (c *call) callerKey() string {
	if c.r.Caller.ID != "" {
		return "id:" + c.r.Caller.ID
	}
	return "addr:" + c.site.clientAddr(c.r.Request)
}

// validate is step 4: check the input against the action's schema and
// decode it into the handler's type. Every issue is reported, not the
// first one.
func (c *call) validate() *failure {
	if c.confirmBadTyp {
		return fail(http.StatusBadRequest, protocol.CodeInvalidInput, "confirm must be true or false")
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
		return fail(http.StatusBadRequest, protocol.CodeInvalidInput, "the input does not match the action's schema", issues...)
	}
	in, err := c.act.decodeInput(c.inputRaw, c.inputValue)
	if err != nil {
		return fail(http.StatusBadRequest, protocol.CodeInvalidInput, "the input does not match the action's types", decodeIssues(err)...)
	}
	c.in = in
	return nil
}

// checkGuard is step 5: load the page's state (this load is the "before"
// of the delta) and evaluate the action's guard, then the input's own
// guard when it has one.
func (c *call) checkGuard() *failure {
	st, f := c.load()
	if f != nil {
		return f
	}
	c.before = st
	if ok, reason := c.act.guard(c.r, st); !ok {
		return fail(http.StatusConflict, protocol.CodeUnavailable, reason)
	}
	if g, isGuard := c.in.(InputGuard); isGuard {
		if ok, reason := g.Guard(c.r, st); !ok {
			if reason == "" {
				reason = "not available for this input"
			}
			return fail(http.StatusConflict, protocol.CodeUnavailable, reason)
		}
	}
	return nil
}

// load runs the page's loader for the call.
func (c *call) load() (*State, *failure) {
	st, err := c.page.load(c.r)
	if errors.Is(err, ErrNotFound) {
		return nil, fail(http.StatusNotFound, protocol.CodeNotFound, "no such page")
	}
	if err != nil {
		c.site.log.ErrorContext(c.r.Context(), "affordances: page loader failed", "route", c.page.route, "path", c.r.URL.Path, "err", err)
		return nil, errInternal()
	}
	return st, nil
}

// requireConfirmation is step 6: a confirm action without confirm: true
// stops here with a summary for the person who must approve it. Nothing
// has run.
func (c *call) requireConfirmation() *failure {
	if c.act.meta.Expose != protocol.ExposeConfirm || c.confirm {
		return nil
	}
	return fail(http.StatusPreconditionRequired, protocol.CodeConfirmRequired, c.summary())
}

// summary is what a confirm action would do, for the approving person.
func (c *call) summary() string {
	if s, ok := c.in.(Summarizer); ok {
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
// delta. An action that declines with [Unavailable] answers unavailable;
// any other error, or a panic, is internal and logged.
func (c *call) run() (*outcome, *failure) {
	beforeActions := c.page.describe(c.r, c.before)
	out, msg, redirect, err := c.invoke()
	if err != nil {
		var u *UnavailableError
		if errors.As(err, &u) {
			return nil, fail(http.StatusConflict, protocol.CodeUnavailable, u.Message)
		}
		c.site.log.ErrorContext(c.r.Context(), "affordances: action failed", "route", c.page.route,
			"action", c.act.meta.Name, "err", err)
		return nil, errInternal()
	}
	d := protocol.Delta{OK: true, Message: msg, Redirect: redirect}
	if c.act.hasOutput {
		d.Output = out
	}
	after, err := c.page.load(c.r)
	switch {
	case errors.Is(err, ErrNotFound):
		after = &State{} // the page is gone: every entity was removed
	case err != nil:
		// The action ran; say so, without the parts that need the new state.
		c.site.log.ErrorContext(c.r.Context(), "affordances: reloading state after an action", "route", c.page.route,
			"action", c.act.meta.Name, "err", err)
		return &outcome{delta: d, redirect: redirect}, nil
	}
	d.Changed = changedEntities(c.act.meta.Effects, c.before, after)
	d.ActionsAdded, d.ActionsRemoved = actionChanges(beforeActions, c.page.describe(c.r, after))
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

// UnavailableError is an action declining on its own terms: sold out in
// the meantime, payment declined. The call answers unavailable with its
// message, which is shown to the user.
type UnavailableError struct{ Message string }

func (e *UnavailableError) Error() string { return e.Message }

// Unavailable returns an error with which an action declines to run. The
// action must not have changed anything when it returns it.
func Unavailable(format string, args ...any) error {
	return &UnavailableError{Message: fmt.Sprintf(format, args...)}
}

// auditCall logs the one record every call leaves, by any transport.
func (c *call) auditCall(status int, code string) {
	action := c.name
	if len(action) > 64 {
		action = action[:64] // an unknown name is the caller's text: bound it
	}
	c.site.audit.LogAttrs(context.WithoutCancel(c.r.Context()), slog.LevelInfo, "affordances call",
		slog.String("route", c.page.route),
		slog.String("page", c.r.URL.Path),
		slog.String("action", action),
		slog.String("caller", c.caller.ID),
		slog.String("auth", string(c.caller.Mode)),
		slog.Bool("confirm", c.confirm),
		slog.String("transport", c.transport),
		slog.String("result", code),
		slog.Int("status", status),
		slog.Duration("duration", time.Since(c.started)),
	)
}

// setRetryAfter sets the Retry-After header of a rate-limited answer.
func (f *failure) setRetryAfter(h http.Header) {
	if f.retryAfter > 0 {
		h.Set("Retry-After", strconv.Itoa(f.retryAfter))
	}
}
