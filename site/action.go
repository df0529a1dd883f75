package site

import (
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"

	"github.com/affordances-go/affordances/internal/schema"
	"github.com/affordances-go/affordances/internal/validate"
	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site/ratelimit"
)

// Action declares what an agent or a person can do on a page. Register it
// with [Handle], which infers the input and output schemas from the
// handler's types.
type Action struct {
	// Name identifies the action on its route; it must be unique there and
	// stay stable across releases. Letters, digits, '_', '-' and '.'.
	Name string
	// Description says what the action does, for the agent and its user.
	Description string
	// Expose says who may call the action. It is required: an action
	// without it cannot be registered.
	Expose protocol.Expose
	// Guard is the action's precondition on the page's state.
	Guard Guard
	// Effects are the entities a call may change, named by their keys
	// (a [Key] is a Named): site.Effects(cartKey). When set, a call's
	// delta reports exactly these entities. On a page that loads entity
	// by entity and has no Load, each must be one of its Entities: a
	// name that is not is a registration error.
	Effects []Named
	// ReadOnly marks an action that changes nothing.
	ReadOnly bool
	// Visible, when set, hides the action from requesters for whom it
	// returns false: it is left out of their graphs and index and answers
	// not_found, as an action that does not exist. For the site index the
	// request has no path values.
	Visible func(r *Request) bool
	// Input replaces the input schema inferred from the handler's input
	// type. It must be a JSON Schema 2020-12 document.
	Input json.RawMessage
	// Output replaces the output schema inferred from the handler's output
	// type.
	Output json.RawMessage
	// NeedsCookies marks an action whose effect lives in a cookie it sets,
	// such as signing in. Through a door that keeps no cookies (see
	// [WithoutCookies]: the MCP endpoint) it would run and leave its
	// effect where nobody can reach it; there it is left out of the site
	// index (and so of the door's tool list), listed in graphs with
	// available: false, and refused as unavailable, with
	// Options.NoCookiesReason saying how to authenticate instead.
	NeedsCookies bool
	// LimitByAddress counts each call of the action against the client's
	// address as well as against the caller, with the same limit: for
	// actions that cost the site (a password hash) and whose caller
	// identity is cheap to mint (a guest cart per call), such as signing
	// in and up.
	LimitByAddress bool
	// Limit overrides the site's default rate limit for this action.
	Limit *ratelimit.Limit
	// RequireApproval makes a confirm action run for an agent only after
	// the person approved the exact call on the site (see [Approval]);
	// Options.RequireApproval does it for every confirm action. A person's
	// own form post keeps its one-step confirmation page.
	RequireApproval bool
	// PeopleOnly keeps the action for the person, in their own browser
	// ([ActorPerson]): managing tokens, standing approvals or passkeys. It
	// is in no graph, delta, site index, MCP tool list or WebMCP tool
	// (its form on the person's page declares no tool), and every agent,
	// with the person's cookie or a token of its own, is refused with
	// 403 unauthorized saying a person must do it on the site. It needs expose session or
	// confirm.
	PeopleOnly bool
}

// Guard is an action's precondition, evaluated on the page's state for
// every graph and before every call.
type Guard struct {
	// Text states the precondition for a reader, such as "the cart is not
	// empty". Graphs and the index show it.
	Text string
	// Check evaluates the precondition for this request and state. When
	// it returns false, reason says why in a sentence for the user; an
	// empty reason falls back to Text. A nil Check is always true.
	Check func(r *Request, st *State) (ok bool, reason string)
}

// InputGuard is implemented by action inputs whose precondition depends on
// the input itself, such as "this size is in stock". Calls evaluate it
// after the page's [Guard], on the same state.
type InputGuard interface {
	Guard(r *Request, st *State) (ok bool, reason string)
}

// InputValidator is implemented by an input with rules its JSON Schema
// does not say (text without control characters, a name that is not only
// spaces). Validate runs at the end of the validation step, on the decoded
// input, before the guard and before any summary is written: it returns
// nil, or [Invalid] errors (joined with errors.Join for several fields),
// and the call answers invalid_input with their issues. Any other error
// is internal.
type InputValidator interface {
	Validate() error
}

// Summarizer is implemented by the inputs of confirm actions. Summary
// writes, for the person asked to approve the call, what it would do, such
// as "Place an order for 2 items, total 58.00 EUR." An input without it is
// summarised by the action's description.
type Summarizer interface {
	Summary(r *Request, st *State) string
}

// Result is what an action's handler returns on success.
type Result[Out any] struct {
	// Output is the action's return value, sent in the delta.
	Output Out
	// Message is a short sentence to repeat to the user.
	Message string
	// Redirect is the path a person would be sent to next.
	Redirect string
}

// Handler runs an action with its decoded, validated input.
type Handler[In, Out any] func(r *Request, in In) (Result[Out], error)

// NoOutput is the output type of actions that return no value: their
// descriptors have no output schema and their deltas no output.
type NoOutput = struct{}

// Done is the result of an action that returns no value, the common case:
//
//	func(r *site.Request, in SetQuantity) (site.Done, error) {
//		...
//		return site.Done{Message: "Quantity updated."}, nil
//	}
type Done = Result[NoOutput]

// action is a registered action with everything a request needs prepared
// at registration.
type action struct {
	meta      Action
	page      *Page
	summary   protocol.ActionSummary // as the site index lists it
	inGraph   protocol.ActionSummary // as graphs and deltas list it: without the output schema
	input     *schema.Schema         // the input schema, for converting form values
	checker   *validate.Input        // the compiled input schema
	hasOutput bool
	effects   []string // the names of Effects
	decode    func(raw []byte) (any, error)
	run       func(r *Request, in any) (out any, msg, redirect string, err error)
}

var actionName = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_.-]{0,63}$`)

// Handle registers an action on page p with handler h. The input schema is
// inferred from In, a struct whose tags are listed in the package
// documentation ("Input struct tags"), closed to unknown properties and
// compiled once here; the output schema is inferred from Out unless Out is
// [NoOutput].
//
// Handle panics when the action cannot be registered: no or an unknown
// Expose, a session or confirm action on a site without [Options.Auth]
// (no caller could ever be signed in to call it), a bad or duplicate name,
// an input type that is not a struct, or a schema that does not compile.
// These are programming errors, caught at start-up like a bad ServeMux
// pattern; the message names the file and line of the Handle call.
func Handle[In, Out any](p *Page, a Action, h Handler[In, Out]) {
	act, err := newAction(p, a, reflect.TypeFor[In](), reflect.TypeFor[Out]())
	if err == nil && h == nil {
		err = fmt.Errorf("nil handler")
	}
	if err != nil {
		panic(fmt.Sprintf("site: action %q on %s at %s: %v", a.Name, p.pattern, callerLocation(), err))
	}
	act.decode = func(raw []byte) (any, error) {
		var in In
		err := json.Unmarshal(raw, &in)
		return in, err
	}
	act.run = func(r *Request, in any) (any, string, string, error) {
		res, err := h(r, in.(In))
		return res.Output, res.Message, res.Redirect, err
	}
	p.addAction(act)
}

func (p *Page) addAction(a *action) {
	if p.site.started.Load() {
		panic(fmt.Sprintf("site: action %q on %s at %s: registered after the site started serving", a.meta.Name, p.pattern, callerLocation()))
	}
	p.actions = append(p.actions, a)
	p.byName[a.meta.Name] = a
}

func newAction(p *Page, a Action, in, out reflect.Type) (*action, error) {
	switch {
	case a.Expose == "":
		return nil, fmt.Errorf("no Expose: an action must say who may call it (public, session or confirm)")
	case !a.Expose.Valid():
		return nil, fmt.Errorf("unknown Expose %q", a.Expose)
	case !actionName.MatchString(a.Name):
		return nil, fmt.Errorf("name must be 1-64 letters, digits, '_', '-' or '.', starting with a letter")
	case p.byName[a.Name] != nil:
		return nil, fmt.Errorf("a second action of that name on the route")
	case a.RequireApproval && a.Expose != protocol.ExposeConfirm:
		return nil, fmt.Errorf("RequireApproval is for confirm actions; expose is %q", a.Expose)
	case a.PeopleOnly && !a.Expose.NeedsSession():
		return nil, fmt.Errorf("PeopleOnly is for a signed-in person: expose must be session or confirm, not %q", a.Expose)
	case a.PeopleOnly && a.RequireApproval:
		return nil, fmt.Errorf("PeopleOnly and RequireApproval: no agent can call a people-only action, so there is nothing to approve")
	case a.Expose.NeedsSession() && p.site.opts.Auth == nil:
		return nil, fmt.Errorf("expose %q needs a signed-in caller, but the site has no Options.Auth, so no call could ever run it", a.Expose)
	}
	if a.Limit != nil {
		if err := a.Limit.Valid(); err != nil {
			return nil, err
		}
	}
	effects, err := p.effectNames(a.Effects)
	if err != nil {
		return nil, err
	}
	goType := in
	act := &action{meta: a, page: p, effects: effects}
	act.summary = protocol.ActionSummary{
		Name: a.Name, Description: a.Description, Expose: a.Expose,
		Guard: a.Guard.Text, Effects: effects, ReadOnly: a.ReadOnly,
		Approval: a.Expose == protocol.ExposeConfirm && (a.RequireApproval || p.site.opts.RequireApproval),
	}

	inRaw := a.Input
	if inRaw == nil {
		for in.Kind() == reflect.Pointer {
			in = in.Elem()
		}
		if in.Kind() != reflect.Struct {
			return nil, fmt.Errorf("input type %s is not a struct: inputs are JSON objects", in)
		}
		act.input, err = schema.Infer(in, &schema.Options{Strict: true})
		if err != nil {
			return nil, fmt.Errorf("input: %w", err)
		}
		if inRaw, err = json.Marshal(act.input); err != nil {
			return nil, err
		}
	} else if err := json.Unmarshal(inRaw, &act.input); err != nil {
		return nil, fmt.Errorf("explicit input schema: %w", err)
	}
	act.summary.Input = validate.Compact(inRaw)
	act.checker, err = validate.NewInput(p.route+"/"+a.Name, inRaw, act.input, goType)
	if err != nil {
		return nil, fmt.Errorf("input schema: %w", err)
	}

	act.hasOutput = out != reflect.TypeFor[NoOutput]()
	switch {
	case a.Output != nil:
		if _, err := validate.Compile(p.route+"/"+a.Name+".output", a.Output); err != nil {
			return nil, fmt.Errorf("output schema: %w", err)
		}
		act.summary.Output = validate.Compact(a.Output)
	case act.hasOutput:
		s, err := schema.Infer(out, nil)
		if err != nil {
			return nil, fmt.Errorf("output: %w", err)
		}
		b, err := json.Marshal(s)
		if err != nil {
			return nil, err
		}
		act.summary.Output = b
	}
	// Graphs and deltas leave the output schema out: the delta carries the
	// output itself, and the site index (and the MCP tools) describe it
	// for planning. It cost the product graph 139 of its 735 tokens.
	act.inGraph = act.summary
	act.inGraph.Output = nil
	return act, nil
}

// visible reports whether the requester may know of the action.
func (a *action) visible(r *Request) bool {
	return a.meta.Visible == nil || a.meta.Visible(r)
}

// cookiesKept reports whether the action can do its work for r: always,
// but for an action that NeedsCookies through a door that keeps none.
func (a *action) cookiesKept(r *Request) bool {
	return !a.meta.NeedsCookies || r.KeepsCookies()
}

// availability evaluates the expose rule and the guard for a request: the
// available and reason fields of the action's descriptor.
func (a *action) availability(r *Request, st *State) (bool, string) {
	if a.meta.Expose.NeedsSession() && !r.Caller.SignedIn {
		return false, a.page.site.opts.SignInReason
	}
	if !a.cookiesKept(r) {
		return false, a.page.site.opts.NoCookiesReason
	}
	if !r.Caller.allows(a.meta.Name) {
		return false, scopeReason(a.meta.Name)
	}
	return a.guard(r, st)
}

// guard evaluates the page-level guard alone. A panic of the guard is
// recorded on the state as a fault of the site's code, and the guard
// counts as false.
func (a *action) guard(r *Request, st *State) (ok bool, reason string) {
	if a.meta.Guard.Check == nil {
		return true, ""
	}
	defer func() {
		if p := recover(); p != nil {
			st.recordPanic(p)
			ok, reason = false, "not available right now"
		}
	}()
	ok, reason = a.meta.Guard.Check(r, st)
	if !ok && reason == "" {
		reason = a.meta.Guard.Text
		if reason == "" {
			reason = "not available right now"
		}
	}
	return ok, reason
}

// describe returns the action's descriptor for this request.
func (a *action) describe(r *Request, st *State) protocol.ActionDescriptor {
	ok, reason := a.availability(r, st)
	if ok {
		reason = ""
	}
	return protocol.ActionDescriptor{ActionSummary: a.inGraph, Available: ok, Reason: reason}
}

// check validates a parsed input against the action's compiled schema and
// its Go field names, and returns every issue found.
func (a *action) check(v any) []protocol.Issue { return a.checker.Check(v) }

// decodeInput decodes a validated input into the handler's type, from its
// raw JSON when the door kept it, else from the parsed value (see
// validate.Decode for numbers such as 1.0).
func (a *action) decodeInput(raw []byte, v any) (any, error) {
	return validate.Decode(raw, v, a.decode)
}
