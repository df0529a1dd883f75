package main

import (
	"context"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"syscall"

	"github.com/affordances-go/affordances/client"
	"github.com/affordances-go/affordances/protocol"
)

// Codes of failures that happen on this side, before or without an answer
// from the site. They share the delta's error shape under --json, next to
// the protocol's codes.
const (
	localUsage       = "usage"            // the command line is wrong
	localBadURL      = "bad_url"          // a URL afford cannot use
	localUnreachable = "unreachable"      // nothing answered: refused, unknown host, timeout
	localNotSite     = "not_affordances"  // the answer is not an Affordances document
	localVersion     = "unsupported"      // a protocol major afford does not speak
	localNotApproved = "not_confirmed"    // the person said no, or could not be asked
	localPending     = "approval_pending" // the person approves on the site later (--no-wait)
	localGone        = "approval_gone"    // the approval expired or was used
	localFailure     = "failure"          // anything else that went wrong here
)

// failure is how a command ended when it did not succeed: what a person
// reads (message, then hints on what to do next), what --json prints, and
// the exit code.
type failure struct {
	Code        string           `json:"code"`
	Message     string           `json:"message"`
	Issues      []protocol.Issue `json:"issues,omitempty"`
	Hints       []string         `json:"hints,omitempty"`
	RetryAfter  int              `json:"-"`
	ApprovalURL string           `json:"-"`
	exit        int
}

// failureDoc is the --json document of a failure: the delta's shape, so a
// script reads every outcome the same way.
type failureDoc struct {
	OK          bool     `json:"ok"`
	Error       *failure `json:"error"`
	RetryAfter  int      `json:"retryAfter,omitempty"`
	ApprovalURL string   `json:"approvalUrl,omitempty"`
}

// where tells explain what the command was doing, so that a hint can name
// the page, the action and the site.
type where struct {
	url    string // the URL given on the command line
	action string // the action called, if any
}

// explain turns an error into a failure with plain words and next steps.
// It may read the site's index and the page's graph to say more (which
// actions the page has, where an action lives).
func (c *command) explain(ctx context.Context, err error, at where) *failure {
	var ue usageError
	var ie inputError
	var bu badURLError
	var pe *client.Error
	var ve *client.VersionError
	switch {
	case errors.As(err, &bu):
		return &failure{Code: localBadURL, Message: bu.msg, Hints: bu.hints, exit: exitUsage}
	case errors.As(err, &ie):
		return &failure{Code: localUsage, Message: string(ie) + "; nothing was sent",
			Hints: []string{"afford get " + at.url + " shows what " + at.action + " takes"}, exit: exitUsage}
	case errors.As(err, &ue):
		return &failure{Code: localUsage, Message: string(ue), Hints: []string{"afford --help shows the commands, flags and examples"}, exit: exitUsage}
	case errors.Is(err, client.ErrNotApproved):
		f := &failure{Code: localNotApproved, Message: "not confirmed; nothing was done", exit: exitNotConfirmed}
		if c.refusedNoTerminal {
			f.Message = "there is no terminal to ask for confirmation on; nothing was done"
			f.Hints = []string{"run again with --yes to confirm (for scripts)"}
		}
		return f
	case errors.Is(err, errNoWait), errors.Is(err, client.ErrApprovalPending):
		msg := "the person approves this on the site; nothing was done yet"
		if errors.Is(err, client.ErrApprovalPending) {
			msg = fmt.Sprintf("the person did not decide within --wait %s; nothing was done yet", c.o.wait)
		}
		return &failure{Code: localPending, Message: msg,
			Hints:       []string{"once they approved, complete it with: afford call " + at.url + " " + at.action + " --approval " + c.pendingApproval},
			ApprovalURL: c.pendingApproval, exit: exitNotConfirmed}
	case errors.Is(err, client.ErrApprovalGone):
		return &failure{Code: localGone, Message: "the approval expired or was already used; nothing was done",
			Hints: []string{"call the action again to ask for a new approval"}, exit: exitNotConfirmed}
	case errors.As(err, &pe):
		return c.explainProtocol(ctx, pe, at)
	case errors.As(err, &ve):
		return &failure{Code: localVersion, Message: fmt.Sprintf("%s speaks a protocol afford does not: %s", ve.URL, strings.TrimPrefix(ve.Err.Error(), "affordances: ")),
			Hints: []string{"afford speaks major " + protocol.Version + "; a newer afford may speak this one"}, exit: exitFailure}
	case errors.Is(err, context.Canceled):
		return &failure{Code: localFailure, Message: "stopped", exit: exitFailure}
	}
	if f := explainNetwork(err, at.url); f != nil {
		return f
	}
	if errors.Is(err, client.ErrNotDocument) {
		return &failure{Code: localNotSite, Message: at.url + " did not answer with an Affordances document",
			Hints: []string{"check that the URL is a page of an Affordances site (afford index SITE lists its pages)"}, exit: exitFailure}
	}
	return &failure{Code: localFailure, Message: plain(err), exit: exitFailure}
}

// explainNetwork describes a request that got no answer, without Go's
// error text: refused, unknown host, timeout, TLS.
func explainNetwork(err error, target string) *failure {
	var ue *url.Error
	if !errors.As(err, &ue) {
		return nil
	}
	site := siteOf(target)
	var dns *net.DNSError
	var unknownCA x509.UnknownAuthorityError
	var hostname x509.HostnameError
	f := &failure{Code: localUnreachable, exit: exitFailure}
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		f.Message = "nothing answers at " + site
		f.Hints = []string{"is the site running at " + site + "?"}
	case errors.As(err, &dns):
		f.Message = "cannot find the host " + dns.Name
		f.Hints = []string{"check the URL's host name"}
	case ue.Timeout():
		f.Message = "no answer from " + site + " in time"
		f.Hints = []string{"is the site up? --timeout sets how long to wait (default 30s)"}
	case errors.As(err, &unknownCA), errors.As(err, &hostname):
		f.Message = site + "'s TLS certificate is not trusted by this machine"
		f.Hints = []string{"a site on a development certificate: trust its certificate (or mkcert's root) with --cacert FILE or AFFORD_CACERT=FILE",
			"else check the URL; a development site may need http:// rather than https://"}
	default:
		f.Message = "could not talk to " + site + ": the connection failed"
		f.Hints = []string{"is the site running at " + site + "?"}
	}
	return f
}

// plain drops the client's "affordances: " prefix: afford prints its own.
func plain(err error) string {
	return strings.TrimPrefix(err.Error(), "affordances: ")
}

// siteOf is the scheme and host of a URL, or the URL itself.
func siteOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return raw
	}
	return u.Scheme + "://" + u.Host
}

// badURLError is a URL afford refuses before sending anything.
type badURLError struct {
	msg   string
	hints []string
}

func (e badURLError) Error() string { return e.msg }

// checkURL accepts absolute http and https URLs, and says what to type
// instead of anything else.
func checkURL(raw string) error {
	if !strings.Contains(raw, "://") {
		return badURLError{msg: fmt.Sprintf("%q has no scheme", raw), hints: []string{"did you mean http://" + raw}}
	}
	u, err := url.Parse(raw)
	if err != nil {
		return badURLError{msg: fmt.Sprintf("%q is not a URL", raw), hints: []string{"a page URL looks like http://127.0.0.1:8080/products/heavyweight-tee"}}
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return badURLError{msg: fmt.Sprintf("%q is not an http or https URL", raw), hints: []string{"afford talks to web sites: use http:// or https://"}}
	}
	if u.Host == "" {
		return badURLError{msg: fmt.Sprintf("%q has no host", raw), hints: []string{"a page URL looks like http://127.0.0.1:8080/products/heavyweight-tee"}}
	}
	return nil
}

// explainProtocol adds next steps to an error the site answered.
func (c *command) explainProtocol(ctx context.Context, e *client.Error, at where) *failure {
	f := &failure{Code: string(e.Code), Message: e.Message, Issues: e.Issues, ApprovalURL: e.ApprovalURL, exit: exitFailure}
	if code, ok := exitForCode[e.Code]; ok {
		f.exit = code
	}
	if e.RetryAfter > 0 {
		f.RetryAfter = int((e.RetryAfter + 999_999_999) / 1_000_000_000)
	}
	switch e.Code {
	case protocol.CodeUnauthorized:
		f.Hints = c.signInHints(ctx, at, e.Status, e.Message)
	case protocol.CodeNotFound:
		f.Hints = c.notFoundHints(ctx, f, at)
	case protocol.CodeRateLimited:
		wait := "a moment"
		if f.RetryAfter > 0 {
			wait = fmt.Sprintf("%d s", f.RetryAfter)
		}
		f.Hints = []string{"wait " + wait + " and try again, or add --retries N to wait and retry on its own"}
	case protocol.CodeInvalidInput:
		if at.action != "" {
			f.Hints = append(c.patternHints(ctx, e.Issues, at), "afford get "+at.url+" shows what "+at.action+" takes")
		}
	case protocol.CodeInternal:
		f.Hints = []string{"the site failed; its logs say why. Nothing here can fix it: try again later"}
	}
	return f
}

// signInHints says how to become a caller the site accepts, by what the
// site refused: a people-only action, a token's scope, a cookie call's
// Origin, or no credential it takes.
func (c *command) signInHints(ctx context.Context, at where, status int, message string) []string {
	if status == 403 {
		switch {
		case strings.Contains(message, "only a person"):
			return []string{"only the person can do this, in a browser signed in on the site: tell them, and where (the message names the page); no credential lets an agent do it"}
		case strings.Contains(message, "scope") || c.o.token != "":
			return []string{"the token is not granted this action: ask the person for a token that may do it (the site index's grants say where tokens are made)"}
		}
		return []string{"the site refused a call riding on cookies from another origin; a bearer token (--token or AFFORD_TOKEN) avoids that"}
	}
	if c.o.token != "" {
		return []string{"the site rejected the token: it may be wrong, expired or revoked; get a new one from the site's account page"}
	}
	account, login := "the site's account page", ""
	cookieOnly := false
	if idx, err := c.client.Index(ctx, at.url); err == nil {
		cookieOnly = len(idx.Auth) > 0 && !slices.Contains(idx.Auth, protocol.AuthBearer)
		for _, r := range idx.Routes {
			if r.Route == "/account" || strings.HasPrefix(r.Route, "/account/") {
				account = siteOf(at.url) + r.Route
			}
			for _, a := range r.Actions {
				if a.Name == "signIn" && !strings.Contains(r.Route, "[") {
					login = siteOf(at.url) + r.Route
				}
			}
		}
	}
	session := "keep a session in a file with --cookie-jar jar.json, or hand afford a browser's session with --cookie 'NAME=VALUE'"
	if login != "" {
		session = "sign in once and keep the session in a file: afford call --cookie-jar jar.json " + login + " signIn email=… password=…, then add --cookie-jar jar.json to every command"
	}
	if cookieOnly {
		// The site takes no bearer token: a session is the only way in.
		return []string{session}
	}
	return []string{"get a bearer token from " + account + ", then set AFFORD_TOKEN=TOKEN or pass --token TOKEN", "or " + session}
}

// notFoundHints explains a not_found: no such page, or no such action on
// it (then: the actions it has, the closest name, and the page that has
// the action when the site's index knows one).
func (c *command) notFoundHints(ctx context.Context, f *failure, at where) []string {
	if at.action == "" {
		return []string{"afford index " + siteOf(at.url) + " lists the site's pages"}
	}
	g, err := c.client.Graph(ctx, at.url)
	if err != nil {
		f.Message = "there is no page at " + at.url
		return []string{"afford index " + siteOf(at.url) + " lists the site's pages"}
	}
	if g.Action(at.action) != nil {
		return nil // the page lists it: the site's own message says why
	}
	f.Message = fmt.Sprintf("the page %s has no action %s", g.Page, at.action)
	var hints []string
	names := make([]string, len(g.Actions))
	for i, a := range g.Actions {
		names[i] = a.Name
	}
	if idx, err := c.client.Index(ctx, at.url); err == nil {
		for _, r := range idx.Routes {
			for _, a := range r.Actions {
				if a.Name == at.action {
					hints = append(hints, fmt.Sprintf("%s is on %s: afford call %s%s %s", a.Name, r.Route, siteOf(at.url), r.Route, a.Name))
				}
			}
		}
	}
	if best := closest(at.action, names); best != "" {
		hints = append([]string{"did you mean " + best + "?"}, hints...)
	}
	if len(names) == 0 {
		hints = append(hints, "this page has no actions")
	} else {
		hints = append(hints, "actions on this page: "+strings.Join(names, ", "))
	}
	return hints
}

// closest is the name nearest to want by edit distance, ignoring case,
// when it is near enough to be a typo.
func closest(want string, names []string) string {
	best, bestD := "", len(want)/2+2
	for _, n := range names {
		if d := distance(strings.ToLower(want), strings.ToLower(n)); d < bestD {
			best, bestD = n, d
		}
	}
	return best
}

// distance is the Levenshtein distance between a and b.
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// patternHints suggests, for an input value that fails only its pattern,
// the value that matches when a change of case or spaces makes one
// (sku=tee-blk-m: did you mean sku=TEE-BLK-M?). It reads the pattern from
// the page's graph.
func (c *command) patternHints(ctx context.Context, issues []protocol.Issue, at where) []string {
	sent, ok := c.sent.(map[string]any)
	if !ok {
		return nil
	}
	var hints []string
	var g *protocol.Graph
	for _, is := range issues {
		name := strings.TrimPrefix(is.Path, "/")
		v, isString := sent[name].(string)
		if is.Keyword != "pattern" || strings.Contains(name, "/") || !isString {
			continue
		}
		if g == nil {
			var err error
			if g, err = c.client.Graph(ctx, at.url); err != nil {
				return nil
			}
		}
		a := g.Action(at.action)
		if a == nil {
			return nil
		}
		var s struct {
			Properties map[string]struct {
				Pattern string `json:"pattern"`
			} `json:"properties"`
		}
		if json.Unmarshal(a.Input, &s) != nil {
			return nil
		}
		re, err := regexp.Compile(s.Properties[name].Pattern)
		if err != nil {
			continue
		}
		for _, try := range []string{strings.ToUpper(v), strings.ToLower(v), strings.TrimSpace(v), strings.ToUpper(strings.TrimSpace(v))} {
			if try != v && re.MatchString(try) {
				hints = append(hints, fmt.Sprintf("did you mean %s=%s?", name, try))
				break
			}
		}
	}
	return hints
}
