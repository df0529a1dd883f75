package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/affordances-go/affordances/protocol"
)

// This file holds a call: its result, the call with its retries, and the
// confirmation of a confirm action with the person.

// Result is a successful call.
type Result struct {
	// Delta is the server's answer.
	Delta protocol.Delta
	// Confirmed reports whether a person approved the call.
	Confirmed bool
	// Next is the graph of Delta.Redirect, when FollowRedirects is set and
	// the call redirected.
	Next *protocol.Graph
}

// Output decodes the delta's output into v.
func (r *Result) Output(v any) error {
	b, err := json.Marshal(r.Delta.Output)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

// Call runs the named action on the page at pageURL with input (any value
// that encodes to a JSON object, or nil for none). A confirm action is
// first called without confirmation; the server's summary goes to the
// Approver, and only when it approves is the call repeated with
// confirm: true. The client never sends confirm: true on its own.
func (c *Client) Call(ctx context.Context, pageURL, action string, input any) (*Result, error) {
	raw, err := encodeInput(action, input)
	if err != nil {
		return nil, err
	}
	d, err := c.post(ctx, pageURL, protocol.Call{Action: action, Input: raw})
	res := &Result{}
	var ce *Error
	if errors.As(err, &ce) && ce.Code == protocol.CodeConfirmRequired && ce.ApprovalURL != "" {
		if c.opts.OnApprovalNeeded == nil {
			return nil, err
		}
		return c.approveOnSite(ctx, pageURL, action, raw, ce)
	}
	if IsCode(err, protocol.CodeConfirmRequired) {
		if c.opts.Approver == nil {
			return nil, err
		}
		ok, aerr := c.opts.Approver(ctx, Approval{Page: pageURL, Action: action, Input: raw, Summary: err.(*Error).Message})
		if aerr != nil {
			return nil, fmt.Errorf("affordances: asking for approval of %s: %w", action, aerr)
		}
		if !ok {
			return nil, ErrNotApproved
		}
		res.Confirmed = true
		d, err = c.post(ctx, pageURL, protocol.Call{Action: action, Input: raw, Confirm: true})
	}
	if err != nil {
		return nil, err
	}
	res.Delta = *d
	return c.finish(ctx, pageURL, res)
}

// Send sends one call exactly as given and returns the server's answer:
// no Approver, no approval flow, no redirect followed; a failure is an
// *Error. It is for programs that run their own confirmation, such as an
// MCP bridge that asks the person through its host. Like every call of
// the client, it never adds confirm: true by itself.
func (c *Client) Send(ctx context.Context, pageURL string, call protocol.Call) (*protocol.Delta, error) {
	return c.postKey(ctx, pageURL, call, "")
}

// SendWithKey is Send with the call's idempotency key given, such as the
// key of a tool call an MCP bridge relays: the same key sent again gets
// the first call's delta, and nothing runs twice. An empty key is a new
// one.
func (c *Client) SendWithKey(ctx context.Context, pageURL string, call protocol.Call, key string) (*protocol.Delta, error) {
	return c.postKey(ctx, pageURL, call, key)
}

// encodeInput encodes a call's input; nil is none.
func encodeInput(action string, input any) (json.RawMessage, error) {
	if input == nil {
		return nil, nil
	}
	b, err := json.Marshal(input)
	if err != nil {
		return nil, fmt.Errorf("affordances: encoding the input of %s: %w", action, err)
	}
	return b, nil
}

// finish follows the redirect of a successful call, when asked to.
func (c *Client) finish(ctx context.Context, pageURL string, res *Result) (*Result, error) {
	d := &res.Delta
	if c.opts.FollowRedirects && d.Redirect != "" {
		next, err := resolve(pageURL, d.Redirect)
		if err != nil {
			return res, err
		}
		if !sameOrigin(pageURL, next) {
			return res, fmt.Errorf("%w: the call's redirect %s is not on the page's origin; not followed", ErrCrossOrigin, next)
		}
		if res.Next, err = c.Graph(ctx, next); err != nil {
			return res, fmt.Errorf("affordances: following the redirect to %s: %w", next, err)
		}
	}
	return res, nil
}

// post sends one call with an Idempotency-Key of its own, retrying with
// the same key, as configured: on 429 after Retry-After, and when the
// answer was lost (the connection failed, or a proxy answered 502, 503
// or 504), since the key makes a repeat of a call that ran a replay of
// its answer, never a second run.
func (c *Client) post(ctx context.Context, pageURL string, call protocol.Call) (*protocol.Delta, error) {
	return c.postKey(ctx, pageURL, call, "")
}

// postKey is post with a given key ("" for a new one).
func (c *Client) postKey(ctx context.Context, pageURL string, call protocol.Call, key string) (*protocol.Delta, error) {
	body, err := json.Marshal(call)
	if err != nil {
		return nil, err
	}
	origin, err := originOf(pageURL)
	if err != nil {
		return nil, err
	}
	if key == "" {
		key = newKey()
	}
	for attempt := 0; ; attempt++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, pageURL, bytes.NewReader(body))
		if err != nil {
			return nil, fmt.Errorf("affordances: %w", err)
		}
		req.Header.Set("Content-Type", protocol.MediaType)
		req.Header.Set("Accept", protocol.MediaType)
		req.Header.Set(protocol.IdempotencyHeader, key)
		if c.opts.Token == "" {
			// A call that rides on cookies comes from the site's own
			// origin, as a browser on the site would send it.
			req.Header.Set("Origin", origin)
		}
		res, b, err := c.send(req)
		lost := err != nil && ctx.Err() == nil && !errors.Is(err, ErrCrossOrigin)
		if err == nil {
			switch res.StatusCode {
			case http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
				lost = !isMediaType(res.Header.Get("Content-Type")) // a proxy's answer, not the site's
			}
		}
		if lost && attempt < c.opts.Retries {
			if werr := c.wait(ctx, time.Duration(attempt+1)*200*time.Millisecond); werr != nil {
				return nil, werr
			}
			continue
		}
		if err != nil {
			return nil, err
		}
		if res.StatusCode == http.StatusOK {
			var d protocol.Delta
			if err := json.Unmarshal(b, &d); err != nil || !isMediaType(res.Header.Get("Content-Type")) {
				return nil, fmt.Errorf("affordances: POST %s: the answer is not a delta: %w", pageURL, ErrNotDocument)
			}
			return &d, nil
		}
		cerr := errorFrom(res, b)
		e := cerr.(*Error)
		if e.ApprovalURL != "" {
			abs, err := resolve(pageURL, e.ApprovalURL)
			if err != nil || !sameOrigin(pageURL, abs) {
				// An approval page elsewhere would be polled with the
				// token: no approval flow, and nothing ran.
				return nil, fmt.Errorf("%w: the approval page %q is not on the page's origin", ErrCrossOrigin, e.ApprovalURL)
			}
			e.ApprovalURL = abs
		}
		// 409 with Retry-After: the first try of this key still runs on
		// the site (its answer was lost on the way); asked again, the
		// same key gets that answer. Any other 409 is final. 503 with
		// Retry-After: the site could not reach its data for a moment
		// (a database restarting); the same key runs the call once.
		running := res.StatusCode == http.StatusConflict && e.RetryAfter > 0
		unreachable := res.StatusCode == http.StatusServiceUnavailable && e.RetryAfter > 0
		if (e.Code != protocol.CodeRateLimited && !running && !unreachable) || attempt >= c.opts.Retries {
			return nil, cerr
		}
		if werr := c.wait(ctx, min(max(e.RetryAfter, time.Second), c.opts.MaxRetryWait)); werr != nil {
			return nil, werr
		}
	}
}

// wait sleeps d, or until ctx ends.
func (c *Client) wait(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
