// Package client is the agent side of Affordances: it discovers a site's
// pages, reads their graphs, and calls their actions, with the approval of
// a person for confirm actions.
//
// A Client rides on a bearer token, or on cookies like a browser would (a
// cookie jar, and the site's own Origin on every call). It refuses
// documents of a protocol major it does not support, and ignores fields it
// does not know.
package client

import (
	"bytes"
	"context"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/affordances-go/affordances/botauth"
	"github.com/affordances-go/affordances/protocol"
)

// DefaultUserAgent is sent when Options.UserAgent is empty.
const DefaultUserAgent = "affordances-go-client/0"

// maxDocument bounds how much of a response the client reads.
const maxDocument = 8 << 20

// Approver decides whether a confirm action may run. It is shown the
// server's summary of what would happen, written for a person, and returns
// true only when that person approved.
type Approver func(ctx context.Context, a Approval) (bool, error)

// Approval is what an Approver is asked.
type Approval struct {
	// Page is the URL of the page the action is on.
	Page string
	// Action is the action's name.
	Action string
	// Input is the input the call carries.
	Input json.RawMessage
	// Summary is the server's description of what would happen.
	Summary string
}

// Options configure a Client. The zero value is a client with a fresh
// cookie jar, no token, no approver and no retries.
type Options struct {
	// HTTPClient sends the requests. Default: a client with a cookie jar
	// and a 30 s timeout. Its CheckRedirect is left as is.
	HTTPClient *http.Client
	// RootCAs, when set, are the roots the client trusts for HTTPS, such
	// as CertPool("dev-root.pem"): the system's and a development
	// certificate's. It applies to HTTPClient's *http.Transport (a copy;
	// the default one when it has none). Default: the system's roots
	// (SSL_CERT_FILE and SSL_CERT_DIR also name more, as for any Go
	// program).
	RootCAs *x509.CertPool
	// Token is a bearer token sent with every request. Calls made with a
	// token carry no Origin.
	Token string
	// Signer, when set, signs every request (Web Bot Auth, see package
	// botauth), so that a site that verifies agents knows which agent
	// calls.
	Signer *botauth.Signer
	// UserAgent names the agent. Default: DefaultUserAgent.
	UserAgent string
	// Approver is asked before a confirm action runs. Without one, such
	// calls end with a *Error of code confirm_required.
	Approver Approver
	// FollowRedirects makes Call read the graph of the page a successful
	// call redirects to (Result.Next).
	FollowRedirects bool
	// Retries is how many times a call is sent again: after a 429, once
	// its Retry-After has passed (at most MaxRetryWait), when its answer
	// was lost (a failed connection, a proxy's 502, 503 or 504), and
	// after a 409 with Retry-After (a try of the call still runs on the
	// site: asked again later, the key gets its answer), and after a 503
	// with Retry-After (the site could not reach its data for a moment).
	// Every attempt carries the call's one Idempotency-Key, so a site
	// that supports keys runs the call once. Default: 0.
	Retries int
	// MaxRetryWait bounds one wait before a retry. Default: 30 s.
	MaxRetryWait time.Duration
	// OnApprovalNeeded is called when a confirm action needs the person's
	// approval on the site itself (the action's descriptor has approval:
	// true): show them the SiteApproval's URL. Call then waits for their
	// decision (AwaitApproval) and completes the call. An error stops the
	// call. Without it, Call returns the confirm_required *Error with its
	// ApprovalURL, and the Approver is not asked: only the site can take
	// the person's approval for such an action.
	OnApprovalNeeded func(ctx context.Context, a SiteApproval) error
	// MaxApprovalWait bounds the wait for the person's decision. Default:
	// 10 minutes.
	MaxApprovalWait time.Duration
}

// Client reads graphs and calls actions. It is safe for concurrent use.
type Client struct {
	http *http.Client
	opts Options
}

// New returns a Client.
func New(opts Options) *Client {
	hc := opts.HTTPClient
	if hc == nil {
		jar, _ := cookiejar.New(nil)
		hc = &http.Client{Jar: jar, Timeout: 30 * time.Second}
	}
	if opts.RootCAs != nil {
		hc = withRoots(hc, opts.RootCAs)
	}
	if opts.UserAgent == "" {
		opts.UserAgent = DefaultUserAgent
	}
	if opts.MaxApprovalWait <= 0 {
		opts.MaxApprovalWait = 10 * time.Minute
	}
	if opts.MaxRetryWait <= 0 {
		opts.MaxRetryWait = 30 * time.Second
	}
	if opts.Token != "" {
		hc = sameOriginRedirects(hc)
	}
	if opts.Signer != nil {
		signed := *hc // a copy: the caller's client is left as it is
		signed.Transport = &botauth.Transport{Signer: opts.Signer, Base: hc.Transport}
		hc = &signed
	}
	return &Client{http: hc, opts: opts}
}

// Index reads a site's index from /.well-known/affordances.json. siteURL
// is any URL of the site.
func (c *Client) Index(ctx context.Context, siteURL string) (*protocol.SiteIndex, error) {
	u, err := url.Parse(siteURL)
	if err != nil {
		return nil, fmt.Errorf("affordances: site URL %q: %w", siteURL, err)
	}
	u = u.ResolveReference(&url.URL{Path: protocol.WellKnownPath})
	var idx protocol.SiteIndex
	if err := c.getDocument(ctx, u.String(), &idx); err != nil {
		return nil, err
	}
	if err := protocol.CheckVersion(idx.V); err != nil {
		return nil, &VersionError{URL: u.String(), Err: err}
	}
	return &idx, nil
}

// Graph reads the graph of the page at pageURL.
func (c *Client) Graph(ctx context.Context, pageURL string) (*protocol.Graph, error) {
	var g protocol.Graph
	if err := c.getDocument(ctx, pageURL, &g); err != nil {
		return nil, err
	}
	if err := protocol.CheckVersion(g.V); err != nil {
		return nil, &VersionError{URL: pageURL, Err: err}
	}
	return &g, nil
}

// getDocument GETs an Affordances document into v. A delta with an error
// (404 not_found, 401…) becomes an *Error.
func (c *Client) getDocument(ctx context.Context, target string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		return fmt.Errorf("affordances: %w", err)
	}
	req.Header.Set("Accept", protocol.MediaType)
	res, body, err := c.send(req)
	if err != nil {
		return err
	}
	if res.StatusCode != http.StatusOK {
		return errorFrom(res, body)
	}
	if !isMediaType(res.Header.Get("Content-Type")) {
		return fmt.Errorf("affordances: GET %s answered %q: %w", target, res.Header.Get("Content-Type"), ErrNotDocument)
	}
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("affordances: GET %s: %w (%v)", target, ErrNotDocument, err)
	}
	return nil
}

// send sends a request with the client's headers and reads the body.
func (c *Client) send(req *http.Request) (*http.Response, []byte, error) {
	req.Header.Set("User-Agent", c.opts.UserAgent)
	if c.opts.Token != "" {
		req.Header.Set("Authorization", "Bearer "+c.opts.Token)
	}
	res, err := c.http.Do(req)
	if err != nil {
		return nil, nil, fmt.Errorf("affordances: %s %s: %w", req.Method, req.URL, err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(io.LimitReader(res.Body, maxDocument))
	if err != nil {
		return nil, nil, fmt.Errorf("affordances: %s %s: reading the answer: %w", req.Method, req.URL, err)
	}
	return res, body, nil
}

// errorFrom turns a failed answer into an *Error, from its delta when it
// has one.
func errorFrom(res *http.Response, body []byte) error {
	e := &Error{Status: res.StatusCode, Code: protocol.CodeInternal, Message: http.StatusText(res.StatusCode)}
	var d protocol.Delta
	if isMediaType(res.Header.Get("Content-Type")) && json.Unmarshal(body, &d) == nil && d.Error != nil {
		e.Code, e.Message, e.Issues, e.ApprovalURL = d.Error.Code, d.Error.Message, d.Error.Issues, d.ApprovalURL
	} else if res.StatusCode == http.StatusNotFound {
		e.Code = protocol.CodeNotFound
	}
	if s, err := strconv.Atoi(res.Header.Get("Retry-After")); err == nil && s >= 0 {
		e.RetryAfter = time.Duration(s) * time.Second
	}
	return e
}

func isMediaType(ct string) bool {
	mt, _, _ := strings.Cut(ct, ";")
	return strings.EqualFold(strings.TrimSpace(mt), protocol.MediaType)
}

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

func originOf(pageURL string) (string, error) {
	u, err := url.Parse(pageURL)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return "", fmt.Errorf("affordances: page URL %q is not absolute", pageURL)
	}
	return strings.ToLower(u.Scheme) + "://" + u.Host, nil
}

// resolve resolves ref against base.
func resolve(base, ref string) (string, error) {
	b, err := url.Parse(base)
	if err != nil {
		return "", err
	}
	r, err := url.Parse(ref)
	if err != nil {
		return "", fmt.Errorf("affordances: %q is not a URL: %w", ref, err)
	}
	return b.ResolveReference(r).String(), nil
}
