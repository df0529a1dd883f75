package approval

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/affordances-go/affordances/internal/words"
	"github.com/affordances-go/affordances/site"
	"github.com/affordances-go/affordances/site/safetext"
)

// Page serves the approval pages at a path ending in {id}: GET shows the
// approval to the person it was asked of (its state as JSON to a client
// that asks for application/json), POST records their decision. Only the
// person decides: signed in, in a cookie session, with the site's
// Origin; a bearer token (an agent) never can. Another person's
// approval, or none, is the same 404.
//
// [Mount] serves one for a site, from its Options and the site's exported
// API; the fields say what the page needs of a site.
type Page struct {
	// Store holds the approvals.
	Store Store
	// View renders the page from a [PageData].
	View *template.Template
	// Visitor finds who opened the page. Its error is answered by Fail.
	Visitor func(r *http.Request) (Visitor, error)
	// Fail answers a request the page could not serve, such as with
	// site.Site.WriteError (Mount's choice): a *site.Error with its
	// status and message, anything else internal. Default: 500.
	Fail func(w http.ResponseWriter, r *http.Request, err error)
	// SignIn returns where a visitor who is not signed in signs in and
	// comes back to the page at back.
	SignIn func(back string) string
	// SameOrigin reports whether a decision was posted from the site's
	// own pages.
	SameOrigin func(r *http.Request) bool
	// PageState returns the state of the page an approval is for, as the
	// visitor would see it, and its entities (for a layout that shows its
	// header from them); nil when it cannot be loaded.
	PageState func(r *http.Request, path string) (state any, entities map[string]any)
	// Presence, when set, asks a person who has a passkey for a proof of
	// presence bound to the approval before it is given ([Prover]).
	Presence Prover
	// Scripts returns the tags of the site's scripts for every page
	// (site.Site.Scripts), the proving extension's among them.
	Scripts func() template.HTML
	// PresenceRequest finds the caller as Presence and Check take it.
	PresenceRequest func(r *http.Request) (*site.Request, error)
	// Check, when set, is the site's own condition on the person's
	// approval, asked after Presence (Options.Check).
	Check func(r *site.Request) error
	// Origin is the site's origin, which a proof of presence binds.
	Origin func(r *http.Request) string
	// PasskeysURL is where a person adds a passkey, for the page to link
	// to when they have none ("" for no link).
	PasskeysURL string
	// Logger receives the store's failures.
	Logger *slog.Logger
}

// Visitor is who opened an approval page.
type Visitor struct {
	// SignedIn reports a signed-in person; Person that they came as the
	// person in their own browser, with the site's cookie session and a
	// navigation ([site.ActorPerson]): the only way to decide. An agent
	// on the same cookie (a script's fetch) is not.
	SignedIn, Person bool
	// Account is the person's account, which approvals are bound to.
	Account string
	// Request is the request as the site's pages see it.
	Request *http.Request
}

// PageData is what an approval page is rendered from.
type PageData struct {
	Approval Approval
	// Title says in words what is asked, such as "Place order"; Agent
	// names who asks ("an agent" when the credential has no label).
	Title, Agent string
	// ExpiresIn is how long the person has, in words ("in 9 minutes").
	ExpiresIn string
	// State is the state of the page the approval is for, as the person
	// would see it (nil when it could not be loaded): for a site's layout
	// to show its header, and for a view that lays out what is asked.
	State any
	// SignedIn is false when the person must sign in first; SignInURL is
	// where.
	SignedIn  bool
	SignInURL string
	// OtherAccount is set when the person is signed in to another
	// account than the one the approval is for: the page says so, with
	// SignInURL to switch account. Nothing of the approval is shown.
	OtherAccount bool
	// Expired reports whether the approval can no longer be given.
	Expired bool
	// Done is set after the person decided, to thank them.
	Done bool
	// Newer is the request the same agent made since for the same call
	// (action, page and input), still waiting for the person, when the Store is
	// a Lister: this one went out of date (what it was for changed), and
	// the page links the new one. Nil otherwise.
	Newer *Approval
	// Presence is set when the person has a passkey and must confirm
	// with it: PresenceAsk is the challenge the page's script hands the
	// browser (put it in a <script type="application/json"> with the id
	// PresenceAskID, and mark the form data-presence
	// data-presence-options=PresenceAskID, with a hidden _presence
	// field). PresenceError says why a proof was refused.
	Presence      bool
	PresenceAsk   template.JS
	PresenceError string
	// Scripts are the tags of the site's scripts for every page, the
	// script that asks for the passkey among them, for the page's head.
	Scripts template.HTML
	// PasskeysURL is where the person adds a passkey, when they have
	// none and the site offers them.
	PasskeysURL string
	// Request is the request being answered.
	Request *http.Request

	entities map[string]any
}

// Heading says where the request stands, for the page's title and
// heading: a question while the person may still decide ("Place order?"),
// the outcome once they did or it can no longer run ("Approved: place
// order", "Done: place order", "This request is out of date").
func (d PageData) Heading() string {
	what := strings.ToLower(d.Title)
	switch {
	case d.OtherAccount:
		return "This request is for another account"
	case !d.SignedIn || d.Approval.ID == "":
		return "Sign in to answer your agent"
	case d.Approval.State == Used:
		return "Done: " + what
	case d.Approval.State == Declined:
		return "Declined: " + what
	case d.Expired:
		return "Expired: " + what
	case d.Newer != nil:
		return "Out of date: " + what
	case d.Approval.State == Approved:
		return "Approved: " + what
	}
	return d.Title + "?"
}

// Entities are the entities of State (nil without one), for a layout that
// shows a page's header from them, as it does for every page.
func (d PageData) Entities() map[string]any { return d.entities }

// fail answers err with Fail, or 500 without it.
func (p *Page) fail(w http.ResponseWriter, r *http.Request, err error) {
	if p.Fail != nil {
		p.Fail(w, r, err)
		return
	}
	http.Error(w, "Internal Server Error", http.StatusInternalServerError)
}

// ServeHTTP implements http.Handler.
func (p *Page) ServeHTTP(w http.ResponseWriter, hr *http.Request) {
	w.Header().Set("Cache-Control", "private, no-store")
	w.Header().Add("Vary", "Accept")
	v, err := p.Visitor(hr)
	if err != nil {
		p.fail(w, hr, err)
		return
	}
	if v.Request == nil {
		v.Request = hr
	}
	id := hr.PathValue("id")
	a, err := p.Store.Get(hr.Context(), id)
	if err != nil && !errors.Is(err, ErrNotFound) {
		p.Logger.ErrorContext(hr.Context(), "affordances: reading an approval", "approval", shortID(id), "err", err)
		http.Error(w, "Internal Server Error", http.StatusInternalServerError)
		return
	}
	wantsJSON := strings.Contains(hr.Header.Get("Accept"), "application/json")
	if !v.SignedIn {
		if wantsJSON {
			http.Error(w, `{"error":"sign in first"}`, http.StatusUnauthorized)
			return
		}
		p.render(w, v, PageData{SignInURL: p.SignIn(hr.URL.Path)}, http.StatusUnauthorized)
		return
	}
	if err != nil {
		http.NotFound(w, hr)
		return
	}
	if a.Account != v.Account {
		// The link is for another account: say so, and how to switch,
		// without showing anything of what is asked.
		if wantsJSON {
			http.NotFound(w, hr)
			return
		}
		p.render(w, v, PageData{SignedIn: true, OtherAccount: true, SignInURL: p.SignIn(hr.URL.Path)}, http.StatusForbidden)
		return
	}
	expired := time.Now().After(a.Expires)
	switch hr.Method {
	case http.MethodGet, http.MethodHead:
		if wantsJSON {
			state := a.State
			if expired && state != Used {
				state = "expired"
			}
			b, _ := json.Marshal(map[string]any{"id": a.ID, "state": state, "expires": a.Expires.UTC().Format(time.RFC3339)})
			w.Header().Set("Content-Type", "application/json")
			w.Write(b)
			return
		}
		d := PageData{Approval: a, SignedIn: true, Expired: expired}
		d.Newer = p.newer(hr, a)
		if err := p.askPresence(hr, &d); err != nil {
			p.Logger.ErrorContext(hr.Context(), "affordances: asking for presence", "approval", shortID(a.ID), "err", err)
			http.Error(w, "Internal Server Error", http.StatusInternalServerError)
			return
		}
		p.render(w, v, d, http.StatusOK)
	case http.MethodPost:
		p.decide(w, hr, v, a, expired)
	default:
		w.Header().Set("Allow", "GET, HEAD, POST")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
	}
}

// newer finds the request the agent made after a, for the same call (the
// same action, page and input), that still waits for the person: a was not used, and
// what it was for changed since (a cart), so the agent asked again.
func (p *Page) newer(hr *http.Request, a Approval) *Approval {
	l, ok := p.Store.(Lister)
	if !ok || a.State == Used || a.State == Declined {
		return nil
	}
	list, err := l.Recent(hr.Context(), a.Account, a.Expires, 20)
	if err != nil {
		p.Logger.ErrorContext(hr.Context(), "affordances: listing approvals", "err", err)
		return nil
	}
	now := time.Now()
	for _, n := range list {
		if n.Supersedes(a, now) {
			return &n
		}
	}
	return nil
}

// decide records the person's decision.
func (p *Page) decide(w http.ResponseWriter, hr *http.Request, v Visitor, a Approval, expired bool) {
	if !v.Person || !p.SameOrigin(hr) {
		http.Error(w, "an approval is given by the person, in a browser signed in on this site", http.StatusForbidden)
		return
	}
	if expired {
		p.render(w, v, PageData{Approval: a, SignedIn: true, Expired: true}, http.StatusGone)
		return
	}
	hr.Body = http.MaxBytesReader(w, hr.Body, 4096)
	decision := hr.PostFormValue("_decision")
	if decision != "approve" && decision != "decline" {
		http.Error(w, "the form names no decision", http.StatusBadRequest)
		return
	}
	if decision == "approve" {
		refused, err := p.checkPerson(hr, a)
		if err != nil {
			p.Logger.ErrorContext(hr.Context(), "affordances: checking the person's approval", "approval", shortID(a.ID), "err", err)
			http.Error(w, "Internal Server Error", http.StatusInternalServerError)
			return
		}
		if refused != "" {
			d := PageData{Approval: a, SignedIn: true, PresenceError: refused}
			if err := p.askPresence(hr, &d); err != nil {
				http.Error(w, "Internal Server Error", http.StatusInternalServerError)
				return
			}
			p.render(w, v, d, http.StatusForbidden)
			return
		}
	}
	if err := p.Store.Decide(hr.Context(), a.ID, decision == "approve"); err != nil && !errors.Is(err, ErrDecided) {
		p.Logger.ErrorContext(hr.Context(), "affordances: recording a decision", "approval", shortID(a.ID), "err", err)
		http.Error(w, "Internal Server Error", http.StatusInternalServerError)
		return
	}
	a, _ = p.Store.Get(hr.Context(), a.ID)
	p.render(w, v, PageData{Approval: a, SignedIn: true, Done: true}, http.StatusOK)
}

// checkPerson checks the person's approval: their proof of presence,
// then the site's own condition (Options.Check), with the caller found
// once. refused says why it is refused, for the person.
func (p *Page) checkPerson(hr *http.Request, a Approval) (refused string, err error) {
	if p.Presence == nil && p.Check == nil {
		return "", nil
	}
	r, err := p.PresenceRequest(hr)
	if err != nil {
		return "", err
	}
	if refused, err = p.checkPresence(r, hr, a); err != nil || refused != "" || p.Check == nil {
		return refused, err
	}
	var e *site.Error
	if err := p.Check(r); errors.As(err, &e) {
		return e.Message(), nil
	} else if err != nil {
		return "", err
	}
	return "", nil
}

func (p *Page) render(w http.ResponseWriter, v Visitor, d PageData, status int) {
	d.Request = v.Request
	if p.Scripts != nil {
		d.Scripts = p.Scripts()
	}
	if d.Approval.ID != "" {
		d.Title = words.FromIdentifier(d.Approval.Action)
		d.Agent = d.Approval.Agent
		if d.Agent == "" {
			d.Agent = "an agent"
		}
		if d.Approval.SignedBy != "" {
			d.Agent += ", signed as " + safetext.ShowAsData(d.Approval.SignedBy) + " (verified)"
		}
		d.ExpiresIn = InWords(time.Until(d.Approval.Expires))
		d.State, d.entities = p.PageState(v.Request, d.Approval.Page)
	} else if d.SignedIn && p.PageState != nil {
		// Nothing of the approval is shown, but the layout's header
		// shows the visitor as signed in, from the home page's entities.
		_, d.entities = p.PageState(v.Request, "/")
	}
	view := p.View
	if view == nil {
		view = DefaultView
	}
	var buf bytes.Buffer
	if err := view.Execute(&buf, d); err != nil {
		p.Logger.ErrorContext(v.Request.Context(), "affordances: rendering an approval page", "err", err)
		http.Error(w, "Internal Server Error", http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(buf.Len()))
	w.WriteHeader(status)
	if v.Request.Method != http.MethodHead {
		w.Write(buf.Bytes())
	}
}

// shortID is an approval id as logs may show it.
func shortID(id string) string {
	if len(id) > 6 {
		return id[:6] + "…"
	}
	return id
}

// InWords writes a duration to come as a person says it: "in 9 minutes",
// "in less than a minute", "in 2 hours"; a past one is "now".
func InWords(d time.Duration) string {
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
