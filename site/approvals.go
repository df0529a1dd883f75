package site

import (
	"context"
	"fmt"
	"net/http"
	"strings"
)

// Approvals is the extension that lets the person an agent acts for
// approve, on the site itself, one exact call to an action with approval
// ([Action.RequireApproval], [Options.RequireApproval]). An extension
// implements it, with its stores and the page where the person decides,
// and plugs it in with [Site.MountApprovals]; the pipeline asks it at
// step 6 and never decides an approval itself.
//
// A site whose actions need approval and that has none answers their
// agents' calls with an internal error, and logs why: such an action
// never runs without the person.
type Approvals interface {
	// Admit decides a call that brings the approval id (empty when it
	// brings none), with confirm: true or not. It returns the basis the
	// person approved when the call may run now, or else the approval
	// page to send the person to.
	Admit(ctx context.Context, call ApprovalCall, id string, confirm bool) (basis string, ask *ApprovalAsk, err error)
	// Ask asks the person to approve call, and returns the page where
	// they decide. why says what was wrong with the approval the call
	// brought ("" when it brought none).
	Ask(ctx context.Context, call ApprovalCall, why string) (*ApprovalAsk, error)
	// Status returns where approval id stands for the person's account
	// and the credential that reads it: pending, approved, declined, used
	// or expired. An approval of another account or credential, or none,
	// is [ErrApprovalNotFound].
	Status(ctx context.Context, account, credential, id string) (string, error)
}

// ApprovalCall is a call that needs the person's approval, as the
// pipeline describes it to [Approvals]: what binds an approval to it, and
// what the person reads.
type ApprovalCall struct {
	// Account is the person's account ([Caller.AccountID]);
	// Credential the ID of the credential that calls, and Agent its
	// label, for the person.
	Account, Credential, Agent string
	// Page is the path of the page, and Action the action's name.
	Page, Action string
	// Input is the call's input, validated and decoded.
	Input any
	// Summary is what the person reads and approves, and Basis the
	// [ApprovalBasis] of the state it was built from ("" when none).
	Summary, Basis string
	// Fields are the whole input, field by field, as the person reads it
	// beside the summary ([InputField]).
	Fields []InputField
	// SignedBy is the agent that signed the call, once its signature was
	// verified (Caller.Agent, Web Bot Auth); "" for an unsigned call.
	SignedBy string
	// Why says why the person is asked, when the site knows more than
	// "this needs your approval": the call is beyond their standing
	// approval ([StandingReasons]). "" otherwise.
	Why string
}

// ApprovalAsk is where a call that may not run yet sends the person.
type ApprovalAsk struct {
	// URL is the path of the approval's page, ending in its id.
	URL string
	// Waiting reports that the call brought an approval the person has
	// not decided yet.
	Waiting bool
	// Why says, for the person, what was wrong with the approval the call
	// brought; "" when it brought none.
	Why string
}

// MountApprovals plugs a in: step 6 asks it for the calls that need the
// person's approval, and pages, its approval pages, are served at
// pattern (such as "/approvals/{id}"), by the extension that implements
// them. Like Mount, it panics after the site started serving, and
// when approvals are already mounted.
func (s *Site) MountApprovals(pattern string, a Approvals, pages http.Handler) {
	if s.approvals != nil {
		panic("site: MountApprovals(" + pattern + "): approvals are already mounted")
	}
	if a == nil {
		panic(fmt.Sprintf("site: MountApprovals(%q): no Approvals", pattern))
	}
	s.Mount(pattern, pages)
	s.approvals = a
}

// ApprovalStatus returns where the approval id (its id, its page's path or
// URL) stands for the caller of hr: pending, approved, declined, used or
// expired. For a door that waits for the person's decision (the MCP
// endpoint). An approval of another account, or of another credential of
// the same account, is [ErrApprovalNotFound], as is any approval on a
// site without [Approvals].
func (s *Site) ApprovalStatus(hr *http.Request, id string) (string, error) {
	r, e := s.authenticate(hr)
	if e != nil {
		return "", e
	}
	if s.approvals == nil {
		return "", ErrApprovalNotFound
	}
	return s.approvals.Status(hr.Context(), r.Caller.AccountID(), r.Caller.ID, approvalID(id))
}

// approvalID takes an approval's id from its id, its page's path or its
// URL: the last path segment.
func approvalID(s string) string {
	s = strings.TrimRight(s, "/")
	if i := strings.LastIndexByte(s, '/'); i >= 0 {
		s = s[i+1:]
	}
	return s
}
