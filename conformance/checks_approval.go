package conformance

// The approval.* checks: sites that declare approvals (an extension of v0
// by this implementation: ActionSummary.approval) keep them.

import (
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"strings"

	"github.com/affordances-go/affordances/protocol"
)

// approvalAction returns the --confirm-action when its descriptor says
// approval, or why the approval checks skip.
func (e *Env) approvalAction() (*Action, *protocol.ActionDescriptor, string) {
	if e.index == nil {
		return nil, nil, "no site index"
	}
	declared := false
	for _, r := range e.index.Routes {
		for _, a := range r.Actions {
			declared = declared || a.Approval
		}
	}
	if !declared {
		return nil, nil, "no action of the index declares approval"
	}
	c := e.cfg.Confirm
	if c == nil {
		return nil, nil, "needs --confirm-action naming an action with approval"
	}
	for _, p := range e.pages {
		if p.url != e.abs(c.Page) {
			continue
		}
		if d := p.graph.Action(c.Name); d != nil && d.Approval {
			return c, d, ""
		}
	}
	return nil, nil, "the --confirm-action is not an action with approval on a page found (name its page with --page)"
}

// approvalCall sends the confirm action with confirm: true and the given
// approval id ("" for none), and returns the answer and whether the page
// changed.
func (e *Env) approvalCall(ctx context.Context, c *Action, approval string) (*response, bool, error) {
	target := e.abs(c.Page)
	before, err := e.getGraph(ctx, target)
	if err != nil {
		return nil, false, err
	}
	body := map[string]any{"action": c.Name, "confirm": true}
	if c.Input != nil {
		body["input"] = c.Input
	}
	if approval != "" {
		body["approval"] = approval
	}
	b, _ := json.Marshal(body)
	res, err := e.post(ctx, target, string(b))
	if err != nil {
		return nil, false, err
	}
	after, err := e.getGraph(ctx, target)
	if err != nil {
		return nil, false, err
	}
	var g0, g1 protocol.Graph
	json.Unmarshal(before.body, &g0)
	json.Unmarshal(after.body, &g1)
	return res, !reflect.DeepEqual(g0.Entities, g1.Entities), nil
}

// checkApprovalNeeded: confirm: true alone does not run an action with
// approval; the answer is confirm_required with the approval page.
func checkApprovalNeeded(ctx context.Context, e *Env) Outcome {
	c, _, why := e.approvalAction()
	if c == nil {
		return skip("%s", why)
	}
	res, changed, err := e.approvalCall(ctx, c, "")
	if err != nil {
		return fail("%v", err)
	}
	ok, msg := res.failedWith(http.StatusPreconditionRequired, protocol.CodeConfirmRequired)
	d, _ := res.delta()
	switch {
	case !ok || changed:
		return fail("%s %s with confirm: true and no approval: %s (page changed: %v)", c.Page, c.Name, msg, changed)
	case d.ApprovalURL == "":
		return fail("%s %s: confirm_required without an approvalUrl", c.Page, c.Name)
	}
	return pass("428 with the approval page %s", d.ApprovalURL)
}

// checkApprovalPage: the approval page needs the person's session.
func checkApprovalPage(ctx context.Context, e *Env) Outcome {
	c, _, why := e.approvalAction()
	if c == nil {
		return skip("%s", why)
	}
	res, _, err := e.approvalCall(ctx, c, "")
	if err != nil {
		return fail("%v", err)
	}
	d, err := res.delta()
	if err != nil || d.ApprovalURL == "" {
		return fail("no approval page to open")
	}
	page, err := e.do(ctx, http.MethodGet, e.abs(d.ApprovalURL), nil, append([]string{"Accept", "text/html"}, anonymous...)...)
	if err != nil {
		return fail("%v", err)
	}
	if page.status == http.StatusOK && strings.Contains(strings.ToLower(string(page.body)), "<form") {
		return fail("%s offers its decision to a visitor without a session", d.ApprovalURL)
	}
	return pass("%d without a session", page.status)
}

// checkApprovalUnknown: an approval the site never issued runs nothing.
func checkApprovalUnknown(ctx context.Context, e *Env) Outcome {
	c, _, why := e.approvalAction()
	if c == nil {
		return skip("%s", why)
	}
	res, changed, err := e.approvalCall(ctx, c, "afford-check-made-up-approval-0000000000000000")
	if err != nil {
		return fail("%v", err)
	}
	if ok, msg := res.failedWith(http.StatusPreconditionRequired, protocol.CodeConfirmRequired); !ok || changed {
		return fail("%s %s with a made-up approval: %s (page changed: %v)", c.Page, c.Name, msg, changed)
	}
	return pass("refused")
}
