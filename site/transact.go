package site

import (
	"context"
	"errors"
	"net/http"

	"github.com/affordances-go/affordances/protocol"
)

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
