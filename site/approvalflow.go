package site

import (
	"bytes"
	"encoding/json"
	"errors"
	"html/template"
	"net/http"
	"strings"
	"time"

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
		Input: inputDigest(c.value), Summary: summary, Basis: c.basis(), Credential: c.r.Caller.ID,
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
	var buf bytes.Buffer
	if err := s.opts.ApprovalView.Execute(&buf, d); err != nil {
		s.opts.Logger.ErrorContext(r.Context(), "affordances: rendering an approval page", "err", err)
		http.Error(w, "Internal Server Error", http.StatusInternalServerError)
		return
	}
	writeHTML(w, r.Request, status, buf.Bytes())
}

var defaultApprovalView = template.Must(template.New("approval").Parse(`<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Approve a request</title></head>
<body>
<main>
{{if not .SignedIn}}<h1>Sign in first</h1>
<p>An agent asked for your approval. Sign in on this site{{with .SignInURL}} (<a href="{{.}}">sign in</a>: you come back here){{end}}.</p>
{{else if .Done}}<h1>{{if eq .Approval.State "approved"}}Approved{{else if eq .Approval.State "declined"}}Declined{{else}}Already decided{{end}}</h1>
<p style="white-space: pre-line">{{.Approval.Summary}}</p>
<p>{{if eq .Approval.State "approved"}}The agent can now complete it, once.{{else}}Nothing will run.{{end}}</p>
{{else}}<h1>Approve a request</h1>
<p>An agent acting for you asks to do this on <code>{{.Approval.Page}}</code> ({{.Approval.Action}}):</p>
<p style="white-space: pre-line"><strong>{{.Approval.Summary}}</strong></p>
{{if .Expired}}<p>This request expired. Nothing will run.</p>
{{else if eq .Approval.State "pending"}}<form method="post">
<button type="submit" name="_decision" value="approve">Approve</button>
<button type="submit" name="_decision" value="decline">Decline</button>
</form>
<p>It expires at {{.Approval.Expires.UTC.Format "15:04 UTC"}}.</p>
{{else if eq .Approval.State "approved"}}<p>You approved this request; the agent has not used it yet.</p>
<form method="post"><button type="submit" name="_decision" value="decline">Withdraw my approval</button></form>
{{else}}<p>This request is {{.Approval.State}}.</p>{{end}}
{{end}}</main>
</body>
</html>
`))
