package site

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/affordances-go/affordances/internal/negotiate"
	"github.com/affordances-go/affordances/internal/schema"
	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site/idempotency"
)

// call is one call going through the pipeline. Each step reads what the
// steps before it left here and returns an *Error to stop the call.
type call struct {
	site      *Site
	page      *Page
	transport Transport
	started   time.Time
	caller    Caller // who made the call, before an action changed r.Caller

	// What the door handed over, the only things that came from it: who
	// calls (the Request, where the call comes from) and the call it
	// decoded. No step reads a header.
	who
	decoded

	idem    *idempotency.Claim // the key this call holds
	replay  *outcome           // what the key's first call produced, to answer again
	settled bool               // the key was settled already (settle), in or out of a transaction

	act    *action
	in     any    // the decoded, validated input
	value  any    // the input as the generic JSON value the schema validated
	before *State // the state the guard saw: the "before" of the delta

	// For the site's Observer: the steps that ran, and a limiter fault.
	steps        []Step // allocated only when the site is observed
	limiterFault bool
}

// decoded is a call as its door decoded it. Every door (the agent's POST,
// an HTML form, Execute for MCP and the inspector) fills the same fields;
// nothing here says which door it was, and the pipeline decides from
// these and from who calls.
type decoded struct {
	name       string // the action's name, as the call gave it
	confirm    bool   // confirm: true was sent
	approvalID string // the approval the call brings, for an action with approval
	idemKey    string // the call's Idempotency-Key, "" for none

	// input is the input as the door had it (nil when omitted); the
	// pipeline only asks for its value under the action's schema.
	input input
	// invalid is the message of a field of the call that had the wrong
	// type, answered at validation so that the steps before it keep
	// their order.
	invalid string
	// personActs is the door's word that the call was posted by a page
	// of this site (an HTML form). It is no credential by itself: with
	// a browser's navigation and a cookie it makes the request's actor
	// the person ([Request.Actor]); see [call.personPresent].
	personActs bool
	// confirmedBasis is the basis of the summary the person confirmed, brought
	// back by the door (the confirmation page's hidden field,
	// FormBasisField, or the signed state of the MCP door that asked). It
	// only ever makes the action's check stricter.
	confirmedBasis string
	// presence is the person's proof the form carried (FormProofField),
	// for a people-only action or the person's own post of an action with
	// approval.
	presence string
}

// who is who makes a call, as its door found it from its own request,
// once: the Request that loaders and actions see (with the Caller), where
// the call comes from, and a rejected bearer token, kept for step 2 so
// that the pipeline's order decides which failure a caller sees. It is
// all the pipeline knows of the caller: no step reads a request's
// headers.
type who struct {
	r          *Request
	provenance provenance
	authErr    *Error // a rejected bearer token
	fail       *Error // the authenticator failed: the call stops, internal
}

// admit is where a call starts: past the site's capacity it is refused at
// once, before its caller is authenticated or its body read, so that a
// refusal costs the site no database work; an admitted call holds its
// slot (release) until it is answered, and learns who calls. e is the
// refusal, or the authenticator's failure.
func (s *Site) admit(hr *http.Request) (w who, release func(), e *Error) {
	release, e = s.admitCall(hr.Context())
	if e != nil {
		return who{provenance: s.provenanceOf(hr), r: &Request{Request: hr}}, nil, e
	}
	w = s.whoCalls(hr)
	return w, release, w.fail
}

// whoCalls finds who makes a call from a door's HTTP request. Every door
// of the site (the agent's POST, an HTML form, Execute for MCP and the
// inspector) finds its caller here, and only here.
func (s *Site) whoCalls(hr *http.Request) who {
	w := who{provenance: s.provenanceOf(hr)}
	r, e := s.authenticate(hr)
	switch {
	case e == nil:
		w.r = r
	case e.badToken:
		w.authErr = e
		w.r = &Request{Request: negotiate.WithoutQuery(hr), Caller: Caller{Mode: protocol.AuthBearer}}
	default:
		w.fail = e
		w.r = &Request{Request: hr}
	}
	return w
}

// execute is the pipeline's one entry: the door's HTTP request, the page,
// which door, and the door's decoder of its call. It knows nothing of the
// door but its name, for the audit record: every door reaches the same
// decision for the same caller and call. A failure is audited here; on
// success the headers the action set are added to h (the answer's
// headers), and the door audits the call with the status it answers.
func (s *Site) execute(h http.Header, hr *http.Request, p *Page, transport Transport, decode func(*decoded) *Error) (*call, *outcome, *Error) {
	started := time.Now()
	// The body is read first, within its own deadline, so that a sender
	// that dribbles it holds no slot; the slot is taken before the caller
	// is looked up, so that a refusal costs no database work.
	var d decoded
	t := s.observedNow()
	e := decode(&d)
	took := sinceIfSet(t)
	w, release, admitErr := s.admit(hr)
	if release != nil {
		defer release()
	}
	c := &call{site: s, page: p, transport: transport, started: started, who: w, caller: w.r.Caller, decoded: d}
	if admitErr != nil {
		e = admitErr // a call refused for want of a slot is answered 503, whatever its body
	} else {
		c.r.byPerson = c.personActs && c.provenance.navigate
		c.stepAt(StepDecode, t, took)
	}
	var out *outcome
	if e == nil {
		out, e = c.pipeline()
	}
	if !c.settled {
		c.settleIdempotency(out, e != nil)
	}
	if out != nil && out.replayed {
		h.Set(protocol.ReplayedHeader, "true")
	}
	if e != nil {
		e.setHeaders(h)
		c.auditCall(e.Status(), string(e.code))
		return c, nil, e
	}
	c.r.flushHeader(h)
	return c, out, nil
}

// input is a call's input as its door decoded it. Each door writes the
// input its own way (an agent's JSON, a form's fields); the pipeline only
// asks for its value under the action's schema, never which door it was.
type input interface {
	// value returns the input as the generic JSON value the schema
	// validator reads, with its JSON when the door has it (else nil), or
	// the issues of converting it to that value.
	value(s *schema.Schema) (v any, raw []byte, issues []protocol.Issue)
	// identity is what identifies the input for an Idempotency-Key.
	identity() any
}

// outcome is what a successful call produced.
type outcome struct {
	delta    protocol.Delta
	redirect string
	replayed bool   // the stored outcome of an idempotency key's first call
	encoded  []byte // the delta as JSON, when it was encoded for its key
}

// pipeline runs the protocol's seven steps in order and stops at the first
// failure. Every transport goes through it. The steps from the guard on
// run in the application's transaction when it has one (transact).
func (c *call) pipeline() (*outcome, *Error) {
	for _, step := range pipelineSteps[:firstDataStep] {
		if step.name == StepIdempotency && c.idemKey == "" {
			continue // a call without a key: the extension's step is not there
		}
		if e := c.step(step.name, step.run); e != nil || c.replay != nil {
			return c.afterSteps(c.replay, e)
		}
	}
	if c.inTransaction() {
		return c.afterSteps(c.transact(c.dataSteps))
	}
	return c.afterSteps(c.dataSteps())
}

// dataSteps are the guard, the confirmation and the run: the steps that
// read and write the site's data.
func (c *call) dataSteps() (*outcome, *Error) {
	for _, step := range pipelineSteps[firstDataStep:] {
		if e := c.step(step.name, step.run); e != nil {
			return nil, e
		}
	}
	t := c.stepStart()
	out, e := c.run()
	c.stepDone(StepRun, t)
	return out, e
}

// step runs one step, timed for the Observer.
func (c *call) step(name string, run func(*call) *Error) *Error {
	t := c.stepStart()
	e := run(c)
	c.stepDone(name, t)
	return e
}

// afterSteps is where the pipeline ends: a failed call's key is read
// (keyAfterFailure), a replay or a success answered as it is.
func (c *call) afterSteps(out *outcome, e *Error) (*outcome, *Error) {
	if e != nil {
		return c.keyAfterFailure(e)
	}
	return out, nil
}

// firstDataStep is the index of the guard in pipelineSteps: the steps
// from it on read and write the site's data (dataSteps). It is found
// once, at start-up, so that a reordering of the steps cannot leave it
// pointing at another step.
var firstDataStep = stepIndex(StepGuard)

// stepIndex returns the index of the named step in pipelineSteps. It
// panics for a name that is not there: a programming error, caught by
// every test at package initialization.
func stepIndex(name string) int {
	for i, step := range pipelineSteps {
		if step.name == name {
			return i
		}
	}
	panic("site: no pipeline step " + name)
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
	{StepConfirm, (*call).consent},
}

// The steps of a call that read or write the site's data (the guard, the
// action, the reads of its delta, and, with a key store that writes in
// the action's transaction, the key's answer) run in one transaction of
// the application's when PageOptions.Transact is set: what the guard saw is
// what the action changes, the delta is read from the same snapshot, and
// a keyed call's answer commits with its writes or not at all.

// errCallFailed is what a call's function returns to PageOptions.Transact
// when the call failed (its guard refused, its action returned an
// error): the transaction must roll back. The call's own *Error is
// answered, not this.
var errCallFailed = errors.New("affordances: the call failed; its transaction rolls back")

// errTransactSkipped: a page's Transact returned nil without running the
// call, a bug of the application's.
var errTransactSkipped = errors.New("it returned nil without running the call")

// inTransaction reports whether the call's guard, action and delta run in
// the application's transaction (PageOptions.Transact). Calls whose step 6
// may write before the action are left out: a confirm action's (it may
// ask the person for an approval, or use one) and a people-only action's
// (its proof of presence is spent whatever the action does), since a
// rollback must not undo those writes.
func (c *call) inTransaction() bool {
	return c.page.opts.Transact != nil && c.act.meta.Expose != protocol.ExposeConfirm && !c.act.meta.PeopleOnly
}

// transact runs steps (the guard to the run) in the application's
// transaction, and settles the call's key inside it when the key store
// writes in the action's transaction, so that the answer commits with
// the action. A call that fails rolls back; one whose commit fails is
// answered as the failure the commit met, and its action did not happen.
func (c *call) transact(steps func() (*outcome, *Error)) (*outcome, *Error) {
	orig := c.r.Request
	outer := orig.Context()
	var out *outcome
	var e *Error
	var inner *http.Request
	ran := false
	err := c.page.opts.Transact(outer, func(ctx context.Context) error {
		ran = true
		inner = c.r.Request.WithContext(ctx)
		c.r.Request = inner
		out, e = steps()
		if e != nil {
			return errCallFailed
		}
		if c.site.keysAfter && c.replay == nil {
			if err := c.settle(out, false); err != nil {
				// The key's answer is part of the call: without it,
				// nothing of the call is kept.
				out = nil
				if e = handlerError(err); e == nil {
					e = c.site.failure(ctx, "storing the call's answer with its key", err, "route", c.page.route, "action", c.act.meta.Name)
				}
				return errCallFailed
			}
		}
		return nil
	})
	// Out of the transaction: the request as it was, unless a step
	// replaced it meanwhile.
	if r := c.r.Request; r == inner || r == orig {
		c.r.Request = orig
	} else {
		c.r.Request = r.WithContext(outer)
	}
	switch {
	case e != nil:
		c.settled = false // nothing of the call was kept: settled as a failure
		return nil, e
	case err != nil:
		c.settled = false // nothing of the call was kept
		if e := handlerError(err); e != nil {
			return nil, e // the application's answer, as an action's
		}
		return nil, c.site.failure(outer, "committing the call's transaction", err, "route", c.page.route, "action", c.act.meta.Name)
	case !ran:
		return nil, c.site.failure(outer, "the page's Transact", errTransactSkipped, "route", c.page.route, "action", c.act.meta.Name)
	}
	return out, nil
}
