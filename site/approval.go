package site

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"sync"
	"time"
)

// Approvals are an extension of v0 (protocol.ActionSummary.Approval): a
// confirm action with approval runs for an agent only once the person it
// acts for approved that exact call on the site itself, signed in, on an
// approval page. The approval is bound to the person's account, the page,
// the action and the exact input, carries the summary they read, expires,
// and is used at most once; when the call comes back, the summary is
// computed again, and if it changed, the person is asked again. It is
// bound to the credential that asked (a token or a session): another
// credential of the same person cannot use it, nor can any once that one
// is revoked. The person can withdraw it until it is used. What the
// summary was built from (its basis, see [ApprovalBasis]) is kept with it,
// so that the action can check where it runs, inside its own transaction,
// that it acts on the state the person approved ([Request.CheckApproved]).

// ApprovalState is where an approval stands.
type ApprovalState string

const (
	ApprovalPending  ApprovalState = "pending"
	ApprovalApproved ApprovalState = "approved"
	ApprovalDeclined ApprovalState = "declined"
	ApprovalUsed     ApprovalState = "used"
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
	// [ApprovalBasis]); empty when the input has none.
	Basis string `json:"-"`
	// Credential is the Caller.ID of the credential that asked: only a
	// call with that credential can use the approval.
	Credential string `json:"-"`
	// State is where it stands; Expires when it stops being usable.
	State   ApprovalState `json:"state"`
	Expires time.Time     `json:"expires"`
}

// ApprovalStore keeps approvals. A site with several instances shares one,
// so that any instance can check an approval another issued. The default
// keeps them in memory.
type ApprovalStore interface {
	// Create stores a new, pending approval.
	Create(ctx context.Context, a Approval) error
	// Get returns an approval, or ErrNoApproval.
	Get(ctx context.Context, id string) (Approval, error)
	// Decide moves a pending approval to approved or declined, and an
	// approved one to declined (the person withdraws it before it is
	// used). It fails with ErrApprovalDecided for any other change.
	Decide(ctx context.Context, id string, approve bool) error
	// Use moves an approved approval to used, atomically: of two calls
	// that try, one gets ErrApprovalDecided.
	Use(ctx context.Context, id string) error
}

// Errors of an ApprovalStore.
var (
	ErrNoApproval      = errors.New("site: no such approval")
	ErrApprovalDecided = errors.New("site: the approval is not in the state the change needs")
)

// newSecretID returns 192 random bits, base64url: the id of an approval,
// the claim of an idempotency key.
func newSecretID() string {
	b := make([]byte, 24)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// shortID is an approval id as logs may show it.
func shortID(id string) string {
	if len(id) > 6 {
		return id[:6] + "…"
	}
	return id
}

// inputDigest is the hex SHA-256 of an input's canonical JSON (object keys
// sorted, as encoding/json writes maps).
func inputDigest(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// MemoryApprovals is an ApprovalStore in memory, for one instance.
type MemoryApprovals struct {
	mu sync.Mutex
	m  map[string]Approval
}

// NewMemoryApprovals returns an empty store.
func NewMemoryApprovals() *MemoryApprovals { return &MemoryApprovals{m: map[string]Approval{}} }

// Create implements ApprovalStore; it forgets approvals a day past their
// expiry.
func (s *MemoryApprovals) Create(_ context.Context, a Approval) error {
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

// Get implements ApprovalStore.
func (s *MemoryApprovals) Get(_ context.Context, id string) (Approval, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a, ok := s.m[id]
	if !ok {
		return Approval{}, ErrNoApproval
	}
	return a, nil
}

// Decide implements ApprovalStore.
func (s *MemoryApprovals) Decide(_ context.Context, id string, approve bool) error {
	if approve {
		return s.move(id, ApprovalPending, ApprovalApproved)
	}
	err := s.move(id, ApprovalPending, ApprovalDeclined)
	if errors.Is(err, ErrApprovalDecided) {
		err = s.move(id, ApprovalApproved, ApprovalDeclined) // withdrawn before use
	}
	return err
}

// Use implements ApprovalStore.
func (s *MemoryApprovals) Use(_ context.Context, id string) error {
	return s.move(id, ApprovalApproved, ApprovalUsed)
}

func (s *MemoryApprovals) move(id string, from, to ApprovalState) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	a, ok := s.m[id]
	if !ok {
		return ErrNoApproval
	}
	if a.State != from {
		return ErrApprovalDecided
	}
	a.State = to
	s.m[id] = a
	return nil
}
