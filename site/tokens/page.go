package tokens

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site"
	"github.com/affordances-go/affordances/site/safetext"
)

// The entities the person's page holds. An application that embeds the
// view in a page of its own must not use these names for its own.
var (
	// ListKey is the person's tokens and what the form offers.
	ListKey = site.NewKey[Listing]("tokens")
	// NewKey is a token's secret, on the page the person sees right
	// after making it, once; never in a graph.
	NewKey = site.NewKey[string]("newToken")
)

// Listing is the person's tokens as the page shows them, with what the
// form to make one offers.
type Listing struct {
	Tokens   []Listed       `json:"tokens"`
	Actions  []Choice       `json:"actions,omitempty"`
	Standing *StandingOffer `json:"standing,omitempty"`
}

// Listed is one token on the person's page.
type Listed struct {
	ID        int64     `json:"id"`
	Label     string    `json:"label"`
	MayDo     string    `json:"mayDo"`
	Created   time.Time `json:"created"`
	LastUsed  time.Time `json:"lastUsed,omitzero"`
	LastAgent string    `json:"lastAgent,omitempty"`
	Expired   bool      `json:"expired,omitempty"`
}

// CreateInput is the input of createToken: the form on the person's page.
type CreateInput struct {
	Label string `json:"label,omitempty" title:"Label" description:"a name to recognise the token by" maxLength:"40"`
	// Scope is what the form asks first: "all" (everything the person
	// can do) or "some" (only Actions, at least one). Empty keeps the
	// older meaning: every action when none is chosen.
	Scope   string   `json:"scope,omitempty" title:"What it may do" description:"all: everything you can do; some: only the actions chosen, at least one" enum:"all,some"`
	Actions []string `json:"actions,omitempty" title:"Only these actions" description:"the actions the token may run; every one when none is chosen and scope is not some" maxItems:"100"`
	Days    int      `json:"days,omitempty" title:"Expires after (days)" description:"the token stops working after this many days; never when empty" minimum:"1" maximum:"3650"`
	PerCall int64    `json:"perCall,omitempty" title:"Approved in advance, up to (each)" description:"calls up to this amount run without asking you; 0 asks every time" minimum:"0"`
	PerDay  int64    `json:"perDay,omitempty" title:"and up to (a day)" description:"what such calls may total in a day" minimum:"0"`
}

// Validate refuses a label with control or bidirectional characters: it
// is shown to the person, on this page and on approval pages.
func (in CreateInput) Validate() error {
	if safetext.HasUnsafe(in.Label) {
		return site.Invalid("/label", "must not contain control characters")
	}
	if in.PerDay > 0 && in.PerCall == 0 {
		return site.Invalid("/perCall", "set the amount per call too, or leave both empty")
	}
	if in.PerCall > 0 && in.PerDay < in.PerCall {
		return site.Invalid("/perDay", "must be at least the amount of one call")
	}
	return nil
}

// RevokeInput is the input of revokeToken.
type RevokeInput struct {
	ID int64 `json:"id" title:"Token" description:"the id of the token to revoke" minimum:"1"`
}

// Summary says what revoking the token does, for the person confirming.
func (in RevokeInput) Summary(r *site.Request, st *site.State) string {
	if l, ok := ListKey.Lookup(st); ok {
		for _, t := range l.Tokens {
			if t.ID == in.ID {
				return fmt.Sprintf("Revoke the token %s? Agents that use it stop working at once.", safetext.Quote(t.Label))
			}
		}
	}
	return fmt.Sprintf("Revoke token %d? Agents that use it stop working at once.", in.ID)
}

// account is the person whose tokens the page shows: the account of a
// signed-in caller, "" for anyone else.
func account(r *site.Request) string {
	if !r.Caller.SignedIn {
		return ""
	}
	return r.Caller.AccountID()
}

// Entities returns the loader of the person's page: ListKey for a
// signed-in caller, and NewKey on the person's own view right after they
// made a token. Put it in the PageOptions.Entities of the page that
// [Kit.Actions] adds the actions to.
func (k *Kit) Entities() site.EntityLoader {
	return site.Group(k.load, ListKey, NewKey)
}

func (k *Kit) load(r *site.Request, st *site.State) error {
	acct := account(r)
	if acct == "" {
		return nil
	}
	ts, err := k.store.List(r.Context(), acct)
	if err != nil {
		return err
	}
	now := k.opts.Now()
	l := Listing{Tokens: make([]Listed, len(ts)), Actions: k.opts.Actions, Standing: k.opts.Standing}
	for i, t := range ts {
		l.Tokens[i] = Listed{ID: t.ID, Label: t.Label, MayDo: k.Describe(t.Grant), Created: t.Created,
			LastUsed: t.LastUsed, LastAgent: t.LastAgent, Expired: !t.Live(now)}
	}
	ListKey.Set(st, l)
	// The secret is shown to the person in their browser, never to an
	// agent: not in a graph, not to a script riding the cookie.
	if r.Actor() == site.ActorPerson && r.Method == "GET" {
		secret, err := k.opts.Reveal.Take(r)
		if err != nil {
			return err
		}
		if secret != "" {
			NewKey.Set(st, secret)
		}
	}
	return nil
}

// Actions adds createToken and revokeToken to p, the page that shows the
// person's tokens ([Kit.Entities] among its entities). Both are
// people-only: no graph, tool or index lists them, and every agent's door
// refuses them, so an agent cannot make itself a token, widen one or
// revoke the person's others. revokeToken asks the person to confirm.
func (k *Kit) Actions(p *site.Page) {
	site.Handle(p, site.Action{Name: "createToken", Description: "Create an API token for agents; it is shown only once",
		Expose: protocol.ExposeSession, Effects: site.Effects(ListKey), PeopleOnly: true}, k.create)
	site.Handle(p, site.Action{Name: "revokeToken", Description: "Revoke an API token", Expose: protocol.ExposeConfirm,
		Effects: site.Effects(ListKey), PeopleOnly: true}, k.revoke)
}

func (k *Kit) create(r *site.Request, in CreateInput) (site.Done, error) {
	g, err := k.grant(in)
	if err != nil {
		return site.Done{}, err
	}
	secret, _, err := k.Issue(r.Context(), account(r), in.Label, g)
	if err != nil {
		return site.Done{}, err
	}
	if err := k.opts.Reveal.Keep(r, secret); err != nil {
		return site.Done{}, err
	}
	return site.Done{Message: "Token created. Copy it now: it is shown only once."}, nil
}

// grant is the grant the person chose on the form, checked against what
// the kit offers.
func (k *Kit) grant(in CreateInput) (Grant, error) {
	var g Grant
	var errs []error
	for i, a := range in.Actions {
		if !slices.ContainsFunc(k.opts.Actions, func(c Choice) bool { return c.Action == a }) {
			errs = append(errs, site.Invalid("/actions/"+strconv.Itoa(i), "must be one of "+k.choices()))
		}
	}
	switch {
	case in.Scope == "some" && len(in.Actions) == 0:
		errs = append(errs, site.Invalid("/actions", "tick at least one thing it may do, or choose everything you can do"))
	case in.Scope == "all" && len(in.Actions) > 0:
		errs = append(errs, site.Invalid("/actions", "untick these, or choose only what you tick"))
	}
	o := k.opts.Standing
	switch {
	case o == nil && (in.PerCall > 0 || in.PerDay > 0):
		errs = append(errs, site.Invalid("/perCall", "this site approves nothing in advance"))
	case o != nil && in.PerCall > o.MaxPerCall:
		errs = append(errs, site.Invalid("/perCall", fmt.Sprintf("must be at most %d %s", o.MaxPerCall, o.Unit)))
	case o != nil && in.PerDay > o.MaxPerDay:
		errs = append(errs, site.Invalid("/perDay", fmt.Sprintf("must be at most %d %s", o.MaxPerDay, o.Unit)))
	}
	if len(errs) > 0 {
		return Grant{}, errors.Join(errs...)
	}
	if len(in.Actions) > 0 {
		g.Actions = slices.Compact(slices.Clone(in.Actions))
		if in.PerCall > 0 && !slices.Contains(g.Actions, o.Action) {
			g.Actions = append(g.Actions, o.Action) // approving calls in advance grants them
		}
	}
	if in.Days > 0 {
		g.Expires = k.opts.Now().Add(time.Duration(in.Days) * 24 * time.Hour)
	}
	if o != nil {
		g.Standing = Standing{PerCall: in.PerCall * o.Scale, PerDay: in.PerDay * o.Scale}
	}
	return g, nil
}

func (k *Kit) choices() string {
	names := make([]string, len(k.opts.Actions))
	for i, c := range k.opts.Actions {
		names[i] = c.Action
	}
	if len(names) == 0 {
		return "nothing: this site offers no choice of actions"
	}
	return strings.Join(names, ", ")
}

func (k *Kit) revoke(r *site.Request, in RevokeInput) (site.Done, error) {
	// The person knows a token by its label, never by its id.
	label := fmt.Sprintf("%d", in.ID)
	if ts, err := k.store.List(r.Context(), account(r)); err == nil {
		for _, t := range ts {
			if t.ID == in.ID && t.Label != "" {
				label = t.Label
			}
		}
	}
	err := k.Revoke(r.Context(), account(r), in.ID)
	if errors.Is(err, ErrNotFound) {
		return site.Done{}, site.NotFound("you have no token %d", in.ID)
	}
	if err != nil {
		return site.Done{}, err
	}
	return site.Done{Message: fmt.Sprintf("Token %s revoked: agents that use it stop working now.", safetext.Quote(label))}, nil
}

// Describe says what a grant allows, in the person's words.
func (k *Kit) Describe(g Grant) string {
	var parts []string
	switch {
	case g.Actions == nil:
		parts = append(parts, "everything you can do")
	case len(g.Actions) == 0:
		parts = append(parts, "nothing")
	default:
		words := make([]string, len(g.Actions))
		for i, a := range g.Actions {
			words[i] = k.words(a)
		}
		parts = append(parts, "only "+strings.Join(words, ", "))
	}
	if o := k.opts.Standing; o != nil {
		if g.Standing.On() {
			parts = append(parts, fmt.Sprintf("%s up to %s each and %s a day without asking you", k.words(o.Action),
				k.amount(g.Standing.PerCall), k.amount(g.Standing.PerDay)))
		} else {
			parts = append(parts, "asks you first")
		}
	}
	if !g.Expires.IsZero() {
		parts = append(parts, "until "+g.Expires.UTC().Format("2 Jan 2006"))
	}
	return strings.Join(parts, "; ")
}

// words is an action in the person's words, its name when the kit has
// none.
func (k *Kit) words(action string) string {
	for _, c := range k.opts.Actions {
		if c.Action == action && c.Words != "" {
			return c.Words
		}
	}
	return action
}

// amount writes an amount of the standing approval in its unit: 4000
// cents as "40.00 EUR".
func (k *Kit) amount(v int64) string {
	o := k.opts.Standing
	if o.Scale == 1 {
		return fmt.Sprintf("%d %s", v, o.Unit)
	}
	digits := len(strconv.FormatInt(o.Scale, 10)) - 1
	return fmt.Sprintf("%.*f %s", digits, float64(v)/float64(o.Scale), o.Unit)
}
