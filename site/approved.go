package site

// ApprovalBasis is implemented by the input of a confirm action whose
// summary is built from state that can change between the moment a person
// approves and the moment the action runs, such as the cart an order is
// placed from. Basis returns a short string that identifies that state (a
// digest of the cart's lines and total, a row version), computed from the
// same state as the summary.
//
// The site keeps the basis with what the person approved: with an
// approval on the site, with the confirmation page a person submits, or
// with the state a door (MCP) hands out while it asks the person. The
// action then reads the state again inside its own transaction, computes
// the basis of what it is about to act on with the same function, and
// calls [Request.CheckApproved]: if the two differ, nothing is written
// and the person is asked again with what is there now.
type ApprovalBasis interface {
	Basis(r *Request, st *State) string
}

// approvedCall is what the person approved for the call that runs.
type approvedCall struct {
	basis    string // the ApprovalBasis of the summary they read
	standing bool   // approved in advance, by a gate of StageStanding
}

// CheckApproved reports whether basis, computed by the action where it
// runs (inside its transaction, from rows it has locked), is the basis of
// the summary the person approved. It returns nil when they are equal, or
// when the call carries no approved basis (an action whose input has no
// [ApprovalBasis]); otherwise [ErrApprovalChanged], which the action
// returns after rolling back.
func (r *Request) CheckApproved(basis string) error {
	if r.approved == nil || r.approved.basis == "" || r.approved.basis == basis {
		return nil
	}
	return ErrApprovalChanged
}

// Standing reports whether the call runs on the person's standing
// approval rather than on an approval they gave for this call: the action
// checks the grant's limits where it writes.
func (r *Request) Standing() bool { return r.approved != nil && r.approved.standing }
