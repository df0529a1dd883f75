package site

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"strings"
	"time"

	"github.com/affordances-go/affordances/internal/words"
	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site/approval"
)

// checkApproval is step 6 for an action with approval, called by an agent:
// nothing runs unless the call brings, with confirm: true, an approval the
// person gave for exactly this call and summary. Every refusal is
// confirm_required with a message that says which, and (but for an
// approval still pending) the page of a new approval.
func (c *call) checkApproval(summary string) *Error {
	ctx := c.r.Context()
	store := c.site.opts.Approvals
	account := c.r.Caller.account()
	input := inputDigest(c.value)
	if c.approvalID == "" || !c.confirm {
		return c.askApproval(summary, "")
	}
	a, err := store.Get(ctx, c.approvalID)
	switch {
	case errors.Is(err, approval.ErrNotFound):
		return c.askApproval(summary, "There is no such approval.")
	case err != nil:
		c.site.opts.Logger.ErrorContext(ctx, "affordances: reading an approval", "approval", shortID(c.approvalID), "err", err)
		return newInternalError()
	case a.Account != account:
		return c.askApproval(summary, "That approval was given for another person.")
	case a.Credential != "" && a.Credential != c.r.Caller.ID:
		return c.askApproval(summary, "That approval was asked for with another credential.")
	case a.Page != c.r.URL.Path || a.Action != c.act.meta.Name:
		return c.askApproval(summary, "That approval is for another call.")
	case a.Input != input:
		return c.askApproval(summary, "The input differs from what the person approved.")
	case time.Now().After(a.Expires):
		return c.askApproval(summary, "That approval expired.")
	case a.State == approval.Declined:
		return c.askApproval(summary, "The person declined.")
	case a.State == approval.Used:
		return c.askApproval(summary, "That approval was used already.")
	case a.State == approval.Pending:
		e := newError(protocol.CodeConfirmRequired, "Waiting for the person's approval: "+summary)
		e.approvalURL = c.site.opts.ApprovalPath + a.ID
		return e
	case a.Summary != summary || a.Basis != c.basis():
		return c.askApproval(summary, "What the person approved has changed since.")
	}
	if err := store.Use(ctx, a.ID); err != nil {
		if errors.Is(err, approval.ErrDecided) {
			return c.askApproval(summary, "That approval was used already.")
		}
		c.site.opts.Logger.ErrorContext(ctx, "affordances: using an approval", "approval", shortID(a.ID), "err", err)
		return newInternalError()
	}
	c.r.approved = &approvedCall{basis: a.Basis}
	return nil
}

// askApproval issues a new pending approval for this call and answers
// confirm_required with its page; why, when set, says what was wrong with
// the approval the call brought.
func (c *call) askApproval(summary, why string) *Error {
	a := approval.Approval{ID: newSecretID(), Account: c.r.Caller.account(), Page: c.r.URL.Path, Action: c.act.meta.Name,
		Input: inputDigest(c.value), Summary: summary, Basis: c.basis(), Credential: c.r.Caller.ID, Agent: c.r.Caller.Label,
		State: approval.Pending, Expires: time.Now().Add(c.site.opts.ApprovalTTL)}
	// The same call, asked again before the person decided: the same page.
	reused := false
	if r, ok := c.site.opts.Approvals.(approval.Reuser); ok {
		if p, err := r.Pending(c.r.Context(), a, time.Now()); err == nil {
			a, reused = p, true
		} else if !errors.Is(err, approval.ErrNotFound) {
			c.site.opts.Logger.ErrorContext(c.r.Context(), "affordances: finding a pending approval", "err", err)
		}
	}
	if !reused {
		if err := c.site.opts.Approvals.Create(c.r.Context(), a); err != nil {
			c.site.opts.Logger.ErrorContext(c.r.Context(), "affordances: storing an approval", "err", err)
			return newInternalError()
		}
	}
	// The message is for the person; how an agent proceeds (the
	// approvalUrl, the call again with the approval) is the protocol's,
	// and each door says it in its own terms.
	msg := summary
	if why != "" {
		msg = why + " Nothing ran. " + summary
	}
	e := newError(protocol.CodeConfirmRequired, msg)
	e.approvalURL = c.site.opts.ApprovalPath + a.ID
	return e
}

// approvalIDOf takes the id from an approval's id, path or URL: its last
// path segment.
func approvalIDOf(s string) string {
	s = strings.TrimRight(s, "/")
	if i := strings.LastIndexByte(s, '/'); i >= 0 {
		s = s[i+1:]
	}
	return s
}

// needsApprovals reports whether some action of the site has approval.
func (s *Site) needsApprovals() bool {
	for _, p := range s.pages {
		for _, a := range p.actions {
			if a.summary.Approval {
				return true
			}
		}
	}
	return false
}

// ApprovalData is what the approval page is rendered from.
type ApprovalData struct {
	Approval approval.Approval
	// Title says in words what is asked, such as "Place order"; Agent
	// names who asks, from Caller.Label ("an agent" without one).
	Title, Agent string
	// ExpiresIn is how long the person has, in words ("in 9 minutes").
	ExpiresIn string
	// State is the state of the page the approval is for, as the person
	// would see it (nil when it could not be loaded): for a site's layout
	// to show its header, and for a view that lays out what is asked.
	State *State
	// SignedIn is false when the person must sign in first; SignInURL is
	// where (Options.SignInURL).
	SignedIn  bool
	SignInURL string
	// Expired reports whether the approval can no longer be given.
	Expired bool
	// Done is set after the person decided, to thank them.
	Done    bool
	Request *Request
}

// serveApproval serves an approval page: GET shows it to the person it was
// asked of (JSON status to an agent that asks for application/json), POST
// records the person's decision. The decision needs a session cookie and
// this site's Origin: a bearer token (an agent) cannot approve.
func (s *Site) serveApproval(w http.ResponseWriter, hr *http.Request) {
	w.Header().Set("Cache-Control", "private, no-store")
	w.Header().Add("Vary", "Accept")
	r, e := s.authenticate(hr)
	if e != nil {
		http.Error(w, e.message, e.Status())
		return
	}
	id := hr.PathValue("id")
	a, err := s.opts.Approvals.Get(hr.Context(), id)
	if err != nil && !errors.Is(err, approval.ErrNotFound) {
		s.opts.Logger.ErrorContext(hr.Context(), "affordances: reading an approval", "approval", shortID(id), "err", err)
		http.Error(w, "Internal Server Error", http.StatusInternalServerError)
		return
	}
	wantsJSON := strings.Contains(hr.Header.Get("Accept"), "application/json")
	if !r.Caller.SignedIn {
		if wantsJSON {
			http.Error(w, `{"error":"sign in first"}`, http.StatusUnauthorized)
			return
		}
		s.renderApproval(w, r, ApprovalData{SignInURL: WithReturn(s.opts.SignInURL, hr.URL.Path), Request: r}, http.StatusUnauthorized)
		return
	}
	// Another person's approval, or none: the same 404.
	if err != nil || a.Account != r.Caller.account() {
		http.NotFound(w, hr)
		return
	}
	expired := time.Now().After(a.Expires)
	switch hr.Method {
	case http.MethodGet, http.MethodHead:
		if wantsJSON {
			state := a.State
			if expired && state != approval.Used {
				state = "expired"
			}
			b, _ := json.Marshal(map[string]any{"id": a.ID, "state": state, "expires": a.Expires.UTC().Format(time.RFC3339)})
			w.Header().Set("Content-Type", "application/json")
			w.Write(b)
			return
		}
		s.renderApproval(w, r, ApprovalData{Approval: a, SignedIn: true, Expired: expired, Request: r}, http.StatusOK)
	case http.MethodPost:
		if r.Caller.Mode != protocol.AuthCookie || !s.originAllowed(hr) {
			http.Error(w, "an approval is given by the person, in a browser signed in on this site", http.StatusForbidden)
			return
		}
		if expired {
			s.renderApproval(w, r, ApprovalData{Approval: a, SignedIn: true, Expired: true, Request: r}, http.StatusGone)
			return
		}
		hr.Body = http.MaxBytesReader(w, hr.Body, 4096)
		decision := hr.PostFormValue("_decision")
		if decision != "approve" && decision != "decline" {
			http.Error(w, "the form names no decision", http.StatusBadRequest)
			return
		}
		if err := s.opts.Approvals.Decide(hr.Context(), a.ID, decision == "approve"); err != nil && !errors.Is(err, approval.ErrDecided) {
			s.opts.Logger.ErrorContext(hr.Context(), "affordances: recording a decision", "approval", shortID(a.ID), "err", err)
			http.Error(w, "Internal Server Error", http.StatusInternalServerError)
			return
		}
		a, _ = s.opts.Approvals.Get(hr.Context(), a.ID)
		s.renderApproval(w, r, ApprovalData{Approval: a, SignedIn: true, Done: true, Request: r}, http.StatusOK)
	default:
		w.Header().Set("Allow", "GET, HEAD, POST")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
	}
}

func (s *Site) renderApproval(w http.ResponseWriter, r *Request, d ApprovalData, status int) {
	if d.Approval.ID != "" {
		d.Title = words.FromIdentifier(d.Approval.Action)
		d.Agent = d.Approval.Agent
		if d.Agent == "" {
			d.Agent = "an agent"
		}
		d.ExpiresIn = inWords(time.Until(d.Approval.Expires))
		d.State = s.approvedPageState(r, d.Approval.Page)
	}
	var buf bytes.Buffer
	if err := s.opts.ApprovalView.Execute(&buf, d); err != nil {
		s.opts.Logger.ErrorContext(r.Context(), "affordances: rendering an approval page", "err", err)
		http.Error(w, "Internal Server Error", http.StatusInternalServerError)
		return
	}
	writeHTML(w, r.Request, status, buf.Bytes())
}

// Entities are the entities of State (nil without one), for a layout
// that shows a page's header from them, as it does for every page.
func (d ApprovalData) Entities() map[string]any {
	if d.State == nil {
		return nil
	}
	return d.State.Entities
}

// approvedPageState loads the page an approval is for, as the person
// would see it, or nil.
func (s *Site) approvedPageState(r *Request, path string) *State {
	p, hr := s.route(r.Request, path, http.MethodGet)
	if p == nil {
		return nil
	}
	pr, e := s.authenticate(hr)
	if e != nil {
		return nil
	}
	st, le := p.loadState(pr)
	if le != nil || st == nil {
		return nil
	}
	st.loadAll()
	return st
}

// inWords writes a duration to come as a person says it: "in 9 minutes",
// "in less than a minute", "in 2 hours"; a past one is "now".
func inWords(d time.Duration) string {
	switch {
	case d <= 0:
		return "now"
	case d < time.Minute:
		return "in less than a minute"
	case d < 90*time.Second:
		return "in 1 minute"
	case d < time.Hour:
		return fmt.Sprintf("in %d minutes", int((d+30*time.Second)/time.Minute)) // to the nearest
	case d < 2*time.Hour:
		return "in 1 hour"
	}
	return fmt.Sprintf("in %d hours", int(d.Hours()))
}

var defaultApprovalView = template.Must(template.New("approval").Parse(`<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{if .Approval.ID}}Approve: {{.Title}}{{else}}Sign in to approve{{end}}</title>
<style>
body { margin: 0; font: 17px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; color: #1d1d1b; background: #f6f5f1; }
main { max-width: 34rem; margin: 0 auto; padding: 1.5rem 1rem 3rem; }
h1 { font-size: 1.5rem; line-height: 1.25; margin: 0 0 .75rem; }
.who { color: #55524b; margin: 0 0 1rem; }
.summary { white-space: pre-line; background: #fff; border: 1px solid #d9d5cc; border-radius: 10px; padding: 1rem 1.1rem; margin: 0 0 1rem; }
.when { color: #55524b; font-size: .95rem; }
.decide { display: flex; flex-direction: column; gap: .75rem; margin: 1.25rem 0; }
.decide button { font: inherit; font-weight: 600; min-height: 3.25rem; border-radius: 10px; cursor: pointer; }
.approve { background: #2f5d50; color: #fff; border: 2px solid #2f5d50; }
.decline { background: #fff; color: #9b2c1f; border: 2px solid #9b2c1f; }
@media (min-width: 32rem) { .decide { flex-direction: row-reverse; justify-content: flex-start; } .decide button { flex: 1; } }
a { color: #2f5d50; }
</style>
</head>
<body>
<main>
{{if not .SignedIn}}<h1>Sign in to answer an agent's request</h1>
<p>An agent acting for you asked for your approval. Only you, signed in on this site, can give it.</p>
{{with .SignInURL}}<p><a href="{{.}}">Sign in</a>, and you come back to this page.</p>{{end}}
{{else if .Done}}<h1>{{if eq .Approval.State "approved"}}Approved{{else if eq .Approval.State "declined"}}Declined: nothing will happen{{else}}Already decided{{end}}</h1>
<p class="summary">{{.Approval.Summary}}</p>
<p>{{if eq .Approval.State "approved"}}The agent can now do this, once. You can withdraw your approval here until it is used.{{else}}Nothing will run.{{end}}</p>
{{else}}<h1>{{.Title}}?</h1>
<p class="who">Asked by {{.Agent}}, acting for you:</p>
<p class="summary">{{.Approval.Summary}}</p>
{{if .Expired}}<p><strong>This request expired.</strong> Nothing will run; the agent can ask again.</p>
{{else if eq .Approval.State "pending"}}<form method="post" class="decide">
<button type="submit" name="_decision" value="approve" class="approve">Approve</button>
<button type="submit" name="_decision" value="decline" class="decline">Decline</button>
</form>
<p class="when">This request expires {{.ExpiresIn}} ({{.Approval.Expires.UTC.Format "15:04 UTC"}}). If you did not expect it, decline.</p>
{{else if eq .Approval.State "approved"}}<p>You approved this request; the agent has not used it yet.</p>
<form method="post" class="decide"><button type="submit" name="_decision" value="decline" class="decline">Withdraw my approval</button></form>
{{else}}<p>This request is {{.Approval.State}}.</p>{{end}}
{{end}}</main>
</body>
</html>
`))
