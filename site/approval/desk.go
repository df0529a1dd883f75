package approval

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"
)

// Desk decides the calls that need the person's approval, against a
// Store: a call runs only with an approval of exactly that call, which the
// person gave and which is used once; any other call is sent to an
// approval page, new or the one it already has. The site's pipeline keeps
// one and asks it at its confirmation step; it says nothing to the caller
// itself (what to answer is the pipeline's).
type Desk struct {
	Store Store
	// TTL is how long a new approval may be decided and used.
	TTL time.Duration
	// Logger receives what the Desk works around: a Reuser that failed
	// (a new approval is asked instead). Nil: slog.Default().
	Logger *slog.Logger
}

// Ask is the answer to a call that may not run yet: the approval to send
// the person to.
type Ask struct {
	// ID is the approval's id: a new one, the pending one the call
	// brought, or the pending one its credential already asked for.
	ID string
	// Waiting reports that the call brought an approval the person has not
	// decided yet: ask them again to decide, not anew.
	Waiting bool
	// Why says what was wrong with the approval the call brought, for the
	// person; "" when it brought none.
	Why string
}

// Admit decides the call described by call (as [Approval.Refusal] reads
// it) that brings the approval id, with confirm: true or not. It returns
// the approval it used when the call may run, or what to ask the person
// otherwise. An error is the Store's.
func (d *Desk) Admit(ctx context.Context, id string, confirm bool, call Approval, now time.Time) (used *Approval, ask *Ask, err error) {
	if id == "" || !confirm {
		ask, err := d.Ask(ctx, call, "", now)
		return nil, ask, err
	}
	a, err := d.Store.Get(ctx, id)
	switch {
	case errors.Is(err, ErrNotFound):
		ask, err := d.Ask(ctx, call, "There is no such approval.", now)
		return nil, ask, err
	case err != nil:
		return nil, nil, fmt.Errorf("reading approval %s: %w", ShortID(id), err)
	}
	if why, pending := a.Refusal(call, now); pending {
		return nil, &Ask{ID: a.ID, Waiting: true}, nil
	} else if why != "" {
		ask, err := d.Ask(ctx, call, why, now)
		return nil, ask, err
	}
	if err := d.Store.Use(ctx, a.ID); err != nil {
		if errors.Is(err, ErrDecided) {
			ask, err := d.Ask(ctx, call, "That approval was used already.", now)
			return nil, ask, err
		}
		return nil, nil, fmt.Errorf("using approval %s: %w", ShortID(a.ID), err)
	}
	return &a, nil, nil
}

// Ask asks the person for an approval of call: the pending approval the
// same credential already asked for the same call when the Store finds it
// ([Reuser]), else a new one. why is what was wrong with the approval the
// call brought, if any.
func (d *Desk) Ask(ctx context.Context, call Approval, why string, now time.Time) (*Ask, error) {
	a := call
	a.ID, a.State, a.Expires = NewID(), Pending, now.Add(d.TTL)
	if r, ok := d.Store.(Reuser); ok {
		p, err := r.Pending(ctx, a, now)
		switch {
		case err == nil:
			return &Ask{ID: p.ID, Why: why}, nil
		case !errors.Is(err, ErrNotFound):
			logger := d.Logger
			if logger == nil {
				logger = slog.Default()
			}
			logger.ErrorContext(ctx, "affordances: finding a pending approval; asking anew", "err", err)
		}
	}
	if err := d.Store.Create(ctx, a); err != nil {
		return nil, fmt.Errorf("storing an approval: %w", err)
	}
	return &Ask{ID: a.ID, Why: why}, nil
}
