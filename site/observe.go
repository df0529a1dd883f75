package site

import (
	"context"
	"log/slog"
	"time"

	"github.com/affordances-go/affordances/protocol"
)

// Observer sees every call and every graph read of a site, whatever the
// transport (an agent's POST, an HTML form, the MCP endpoint), so that an
// operator can count, time and trace them. It is told what happened and
// how long each step of the pipeline took; never who the caller is, nor
// any input value. An extension turns it into OpenTelemetry
// spans and metrics; the site itself imports neither.
//
// Its methods run on the request's goroutine after the answer is decided,
// with the request's context (which carries the incoming trace, when a
// tracing middleware extracted it). They must be safe
// for concurrent use and quick: the call waits for them.
type Observer interface {
	// ObserveCall is told about one call, once, when it ended.
	ObserveCall(ctx context.Context, c CallEvent)
	// ObserveGraph is told about one graph read, once, when it ended.
	ObserveGraph(ctx context.Context, g GraphEvent)
}

// CallEvent is one call as an Observer sees it.
type CallEvent struct {
	// Route is the page's route in bracket form, such as /products/[slug].
	Route string
	// Action is the action's name, or "" when the call named none that
	// the route has (an unknown name is the caller's text, not recorded).
	Action string
	// Transport is the door the call came through.
	Transport Transport
	// Code is CodeOK or the protocol's error code.
	Code protocol.ErrorCode
	// Status is the HTTP status the transport answered with.
	Status int
	// Caller is the kind of caller.
	Caller CallerKind
	// Agent is the verified agent that signed the call (Caller.Agent), or
	// "".
	Agent string
	// Start is when the call began; Duration how long it took.
	Start    time.Time
	Duration time.Duration
	// Steps are the pipeline's steps that ran, in order, with their times.
	Steps []Step
	// LimiterFault reports that the rate limiter failed during the call
	// (the site then followed its fail-open or fail-closed policy).
	LimiterFault bool
}

// Step is one step of the call pipeline and how long it took.
type Step struct {
	// Name is one of the Step* constants.
	Name     string
	Start    time.Time
	Duration time.Duration
}

// The names of the pipeline's steps, in their order, and the code of an
// event that succeeded.
const (
	StepDecode    = "decode"    // reading the request's body
	StepResolve   = "resolve"   // 1: the action on the route
	StepAuthorize = "authorize" // 2: Origin and expose
	StepRateLimit = "rate_limit"
	// StepIdempotency claims the call's Idempotency-Key (an extension, between
	// steps 3 and 4), or replays the outcome stored with it.
	StepIdempotency = "idempotency"
	StepValidate    = "validate" // 4: the input against its schema
	StepGuard       = "guard"    // 5: the state before, and the guards
	StepConfirm     = "confirm"  // 6: confirmation and approval
	StepRun         = "run"      // 7: the action, the state after, the delta

	// CodeOK is the Code of a CallEvent or GraphEvent that succeeded; a
	// failure's is the protocol's error code.
	CodeOK protocol.ErrorCode = "ok"
)

// GraphEvent is one graph read as an Observer sees it.
type GraphEvent struct {
	// Route is the page's route in bracket form.
	Route string
	// Transport is TransportAgent for a GET of the page, else the
	// transport that read it ("mcp" for the MCP endpoint's readPage).
	Transport Transport
	// Code is CodeOK or the protocol's error code.
	Code protocol.ErrorCode
	// Caller is the kind of caller.
	Caller CallerKind
	// Bytes is the graph's size; 0 when the read failed.
	Bytes    int
	Start    time.Time
	Duration time.Duration
}

// maxSteps bounds the steps a call records: decode and the seven.
const maxSteps = 8

// stepStart returns the time a step starts, when the site is observed;
// an unobserved call reads no clock.
func (c *call) stepStart() time.Time { return c.site.observedNow() }

// observedNow is the time now when the site is observed, else zero.
func (s *Site) observedNow() time.Time {
	if s.opts.Observer == nil {
		return time.Time{}
	}
	return time.Now()
}

// sinceIfSet is the time since t, or zero for a zero t (no clock read).
func sinceIfSet(t time.Time) time.Duration {
	if t.IsZero() {
		return 0
	}
	return time.Since(t)
}

// stepDone records a step that started at t.
func (c *call) stepDone(name string, t time.Time) { c.stepAt(name, t, sinceIfSet(t)) }

// stepAt records a step that started at t and took d.
func (c *call) stepAt(name string, t time.Time, d time.Duration) {
	if t.IsZero() {
		return
	}
	if c.steps == nil {
		c.steps = make([]Step, 0, maxSteps)
	}
	c.steps = append(c.steps, Step{Name: name, Start: t, Duration: d})
}

// observe tells the site's Observer about a call that ended.
func (c *call) observe(status int, code string) {
	o := c.site.opts.Observer
	if o == nil {
		return
	}
	action := ""
	if c.act != nil {
		action = c.act.meta.Name
	}
	o.ObserveCall(c.r.Context(), CallEvent{Route: c.page.route, Action: action, Transport: c.transport,
		Code: protocol.ErrorCode(code), Status: status, Caller: callerKind(c.caller.Mode), Agent: c.caller.Agent, Start: c.started,
		Duration: time.Since(c.started), Steps: c.steps, LimiterFault: c.limiterFault})
}

// observeGraph tells the site's Observer about a graph read.
func (s *Site) observeGraph(ctx context.Context, p *Page, transport Transport, caller protocol.AuthMode, start time.Time, n int, e *Error) {
	o := s.opts.Observer
	if o == nil {
		return
	}
	code := CodeOK
	if e != nil {
		code = e.code
	}
	o.ObserveGraph(ctx, GraphEvent{Route: p.route, Transport: transport, Code: code, Caller: callerKind(caller),
		Bytes: n, Start: start, Duration: time.Since(start)})
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
		slog.String("agent", c.caller.Agent),
		slog.Bool("confirm", c.confirm),
		slog.String("transport", string(c.transport)),
		slog.String("result", code),
		slog.Int("status", status),
		slog.Duration("duration", time.Since(c.started)),
	)
}
