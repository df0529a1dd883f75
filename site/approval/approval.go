// Package approval holds the data of approvals, an extension of v0
// (protocol.ActionSummary.Approval): a confirm action with approval runs
// for an agent only once the person it acts for approved that exact call
// on the site itself, signed in, on an approval page. An approval is
// bound to the person's account, the page, the action and the exact input,
// carries the summary they read, expires, and is used at most once; it is
// bound to the credential that asked (a token or a session), and the
// person can withdraw it until it is used.
//
// [Mount] plugs approvals into a site through its one seam: a gate at the
// approval stage of step 6 (site.StageApproval) decides the agents' calls
// to actions with approval (site.Action.RequireApproval), and the pipeline
// never decides one itself. [Status] tells a door that waits (the MCP
// endpoint) where an approval stands. This package holds the rest: the data and what a store of
// approvals implements ([Store], with [Memory] for one instance and
// tests), the [Desk] that decides a call against a store, and the approval
// pages where the person decides ([Page], with [DefaultView]), fed with
// the site's authenticator, its Origin rule and its pages' states.
package approval

import (
	"context"
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/affordances-go/affordances/site"
)

// State is where an approval stands.
type State string

// The states of an approval.
const (
	Pending  State = "pending"
	Approved State = "approved"
	Declined State = "declined"
	Used     State = "used"
)

// Approval is one approval a person is asked for.
type Approval struct {
	// ID is unguessable: 192 random bits, base64url.
	ID string `json:"id"`
	// Account is the person's account (Caller.Account, or Caller.ID).
	Account string `json:"-"`
	// Page and Action are the call it is for.
	Page   string `json:"page"`
	Action string `json:"action"`
	// Input is the hex SHA-256 of the call's input in canonical JSON.
	Input string `json:"-"`
	// Summary is what the person reads and approves.
	Summary string `json:"summary"`
	// Basis identifies the state the summary was built from (see
	// site.ApprovalBasis); empty when the input has none.
	Basis string `json:"-"`
	// Credential is the Caller.ID of the credential that asked: only a
	// call with that credential can use the approval.
	Credential string `json:"-"`
	// Agent is the Caller.Label of the credential that asked, for the
	// person: which agent asks.
	Agent string `json:"agent,omitempty"`
	// SignedBy is the verified agent that signed the call that asked
	// (Web Bot Auth), "" when it was not signed.
	SignedBy string `json:"signedBy,omitempty"`
	// Fields are the call's whole input as the person reads it, field by
	// field, beside Summary.
	Fields []site.InputField `json:"fields,omitempty"`
	// Why says why the person is asked, when the site knows (a call
	// beyond their standing approval).
	Why string `json:"why,omitempty"`
	// State is where it stands; Expires when it stops being usable.
	State   State     `json:"state"`
	Expires time.Time `json:"expires"`
}

// Store keeps approvals. A site with several instances shares one, so
// that any instance can check an approval another issued. The site's
// default keeps them in memory ([Memory]).
type Store interface {
	// Create stores a new, pending approval.
	Create(ctx context.Context, a Approval) error
	// Get returns an approval, or ErrNotFound.
	Get(ctx context.Context, id string) (Approval, error)
	// Decide moves a pending approval to approved or declined, and an
	// approved one to declined (the person withdraws it before it is
	// used). It fails with ErrDecided for any other change.
	Decide(ctx context.Context, id string, approve bool) error
	// Use moves an approved approval to used, atomically: of two calls
	// that try, one gets ErrDecided.
	Use(ctx context.Context, id string) error
}

// Reuser is a Store that can find the pending approval a credential
// already asked for the same call, so that an unconfirmed call repeated
// before the person decided shows the same page again instead of asking
// anew. Memory is one; a Store that is not asks anew each time.
type Reuser interface {
	// Pending returns the pending approval, unexpired at now, with the
	// same Account, Credential, Page, Action, Input, Summary and Basis as
	// like, or ErrNotFound.
	Pending(ctx context.Context, like Approval, now time.Time) (Approval, error)
}

// Lister is a Store that lists an account's approvals, for the person's
// own page of their agents' requests, and for the approval page to point
// from a request that went out of date (the cart changed) to the one the
// agent made since. Memory is one.
type Lister interface {
	// Recent returns the account's approvals that expire after since,
	// newest first (the latest expiry first), at most limit.
	Recent(ctx context.Context, account string, since time.Time, limit int) ([]Approval, error)
}

// Errors of a Store.
var (
	ErrNotFound = errors.New("approval: no such approval")
	ErrDecided  = errors.New("approval: the approval is not in the state the change needs")
)

// Memory is a Store in memory, for one instance and for tests.
type Memory struct {
	mu sync.Mutex
	m  map[string]Approval
}

// NewMemory returns an empty store.
func NewMemory() *Memory { return &Memory{m: map[string]Approval{}} }

// Create implements Store; it forgets approvals a day past their
// expiry.
func (s *Memory) Create(_ context.Context, a Approval) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now()
	for id, x := range s.m {
		if now.Sub(x.Expires) > 24*time.Hour {
			delete(s.m, id)
		}
	}
	s.m[a.ID] = a
	return nil
}

// Get implements Store.
func (s *Memory) Get(_ context.Context, id string) (Approval, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a, ok := s.m[id]
	if !ok {
		return Approval{}, ErrNotFound
	}
	return a, nil
}

// Pending implements Reuser.
func (s *Memory) Pending(_ context.Context, like Approval, now time.Time) (Approval, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, a := range s.m {
		if a.State == Pending && now.Before(a.Expires) && a.Account == like.Account && a.Credential == like.Credential &&
			a.Page == like.Page && a.Action == like.Action && a.Input == like.Input && a.Summary == like.Summary && a.Basis == like.Basis {
			return a, nil
		}
	}
	return Approval{}, ErrNotFound
}

// Recent implements Lister.
func (s *Memory) Recent(_ context.Context, account string, since time.Time, limit int) ([]Approval, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Approval
	for _, a := range s.m {
		if a.Account == account && a.Expires.After(since) {
			out = append(out, a)
		}
	}
	slices.SortFunc(out, func(a, b Approval) int { return b.Expires.Compare(a.Expires) })
	if len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

// Decide implements Store.
func (s *Memory) Decide(_ context.Context, id string, approve bool) error {
	if approve {
		return s.move(id, Pending, Approved)
	}
	err := s.move(id, Pending, Declined)
	if errors.Is(err, ErrDecided) {
		err = s.move(id, Approved, Declined) // withdrawn before use
	}
	return err
}

// Use implements Store.
func (s *Memory) Use(_ context.Context, id string) error {
	return s.move(id, Approved, Used)
}

func (s *Memory) move(id string, from, to State) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	a, ok := s.m[id]
	if !ok {
		return ErrNotFound
	}
	if a.State != from {
		return ErrDecided
	}
	a.State = to
	s.m[id] = a
	return nil
}
