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
	"context"
	"crypto/x509"
	"encoding/json"
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
	// Markdown asks graphs for the page's md too (the media type's md=1),
	// for a client that shows pages to a person, as afford does. A site
	// of this library leaves md out of a graph otherwise: the entities
	// hold the same, and an agent pays for the page once.
	Markdown bool
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
	if err := c.getDocument(ctx, u.String(), protocol.MediaType, &idx); err != nil {
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
	accept := protocol.MediaType
	if c.opts.Markdown {
		accept += "; md=1"
	}
	if err := c.getDocument(ctx, pageURL, accept, &g); err != nil {
		return nil, err
	}
	if err := protocol.CheckVersion(g.V); err != nil {
		return nil, &VersionError{URL: pageURL, Err: err}
	}
	return &g, nil
}

// getDocument GETs an Affordances document into v. A delta with an error
// (404 not_found, 401…) becomes an *Error.
func (c *Client) getDocument(ctx context.Context, target, accept string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		return fmt.Errorf("affordances: %w", err)
	}
	req.Header.Set("Accept", accept)
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
