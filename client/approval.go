package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/affordances-go/affordances/protocol"
)

// SiteApproval is a confirm action that waits for the person's approval
// on the site itself (an extension of v0 by this implementation): the
// person opens URL in their browser, signed in, and approves or declines
// the exact call.
type SiteApproval struct {
	// URL is the approval page.
	URL string
	// Page and Action are the call; Summary what the person approves.
	Page, Action, Summary string
}

// ErrApprovalGone is returned when the approval expired or was used before
// the call completed. Nothing ran; calling again asks again.
var ErrApprovalGone = errors.New("affordances: the approval expired or was used")

// ErrApprovalPending is returned when the wait for the person's decision
// ended (MaxApprovalWait, or ctx's deadline) with the approval still
// pending: nothing ran, and the call can be completed later with
// CallApproved once they approved.
var ErrApprovalPending = errors.New("affordances: the person has not decided yet")

// AwaitApproval waits until the person decided on the approval page:
// nil when they approved, ErrNotApproved when they declined,
// ErrApprovalGone when it expired. It asks the page for its state with
// the client's credentials, every second at first and then less often (at
// most every 5 s), until MaxApprovalWait or ctx ends.
func (c *Client) AwaitApproval(ctx context.Context, approvalURL string) error {
	ctx, cancel := context.WithTimeout(ctx, c.opts.MaxApprovalWait)
	defer cancel()
	wait := time.Second
	for {
		state, err := c.approvalState(ctx, approvalURL)
		if err != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return fmt.Errorf("affordances: waiting for the person's approval: %w", ErrApprovalPending)
		}
		if err != nil {
			return err
		}
		switch state {
		case "approved":
			return nil
		case "declined":
			return ErrNotApproved
		case "pending":
		default:
			return ErrApprovalGone
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return fmt.Errorf("affordances: waiting for the person's approval: %w", ErrApprovalPending)
			}
			return fmt.Errorf("affordances: waiting for the person's approval: %w", ctx.Err())
		case <-t.C:
		}
		wait = min(wait*3/2, 5*time.Second)
	}
}

// ApprovalState reads where an approval stands, with the client's
// credentials: pending, approved, declined, used or expired.
func (c *Client) ApprovalState(ctx context.Context, approvalURL string) (string, error) {
	return c.approvalState(ctx, approvalURL)
}

// approvalState reads the state of an approval.
func (c *Client) approvalState(ctx context.Context, approvalURL string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, approvalURL, nil)
	if err != nil {
		return "", fmt.Errorf("affordances: %w", err)
	}
	req.Header.Set("Accept", "application/json")
	res, body, err := c.send(req)
	if err != nil {
		return "", err
	}
	if res.StatusCode != http.StatusOK {
		return "", fmt.Errorf("affordances: reading the approval %s: %s", approvalURL, res.Status)
	}
	var st struct {
		State string `json:"state"`
	}
	if err := json.Unmarshal(body, &st); err != nil {
		return "", fmt.Errorf("affordances: reading the approval %s: %w", approvalURL, err)
	}
	return st.State, nil
}

// CallApproved repeats a call with confirm: true and the approval the
// person gave at approvalURL. The site runs it only when the approval is
// for exactly this call and what the person read is still what would
// happen; otherwise the answer is a new confirm_required with a new
// approval page (*Error.ApprovalURL).
func (c *Client) CallApproved(ctx context.Context, pageURL, action string, input any, approvalURL string) (*Result, error) {
	raw, err := encodeInput(action, input)
	if err != nil {
		return nil, err
	}
	d, err := c.post(ctx, pageURL, protocol.Call{Action: action, Input: raw, Confirm: true, Approval: approvalID(approvalURL)})
	if err != nil {
		return nil, err
	}
	return c.finish(ctx, pageURL, &Result{Delta: *d, Confirmed: true})
}

// approvalID is the last path segment of an approval page's URL.
func approvalID(u string) string {
	u = strings.TrimRight(u, "/")
	if i := strings.LastIndexByte(u, '/'); i >= 0 {
		return u[i+1:]
	}
	return u
}

// approveOnSite runs the approval flow of Call: tell the program (and so
// the person) where to approve, wait, and complete the call; when what the
// person approved changed, ask again, at most three times.
func (c *Client) approveOnSite(ctx context.Context, pageURL, action string, raw json.RawMessage, first *Error) (*Result, error) {
	e := first
	for range 3 {
		a := SiteApproval{URL: e.ApprovalURL, Page: pageURL, Action: action, Summary: e.Message}
		if err := c.opts.OnApprovalNeeded(ctx, a); err != nil {
			return nil, err
		}
		if err := c.AwaitApproval(ctx, e.ApprovalURL); err != nil {
			return nil, err
		}
		d, err := c.post(ctx, pageURL, protocol.Call{Action: action, Input: raw, Confirm: true, Approval: approvalID(e.ApprovalURL)})
		if err == nil {
			return c.finish(ctx, pageURL, &Result{Delta: *d, Confirmed: true})
		}
		var next *Error
		if !errors.As(err, &next) || next.Code != protocol.CodeConfirmRequired || next.ApprovalURL == "" {
			return nil, err
		}
		e = next
	}
	return nil, e
}
