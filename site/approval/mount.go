package approval

import (
	"context"
	"errors"
	"html/template"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/affordances-go/affordances/site"
)

// Options configure the approvals [Mount] plugs into a site.
type Options struct {
	// Store keeps approvals. Default: in memory ([Memory]), for one
	// instance.
	Store Store
	// TTL is how long an approval can be given and used. Default: 10
	// minutes.
	TTL time.Duration
	// Path is where approval pages are served: Path + id. Default:
	// /approvals/.
	Path string
	// SignInURL is where an approval page sends a person who is not
	// signed in, with the page to come back to in its "next" parameter
	// (site.ReturnParam): a sign-in action returns there with
	// site.Request.ReturnPath. Default: none; the page asks them to sign
	// in.
	SignInURL string
	// View renders an approval page from a [PageData]. Default:
	// [DefaultView].
	View *template.Template
	// PasskeysURL is where a person adds a passkey (their account page),
	// for the approval page to link to when they have none and the site
	// has Presence. Default: no link.
	PasskeysURL string
	// Logger receives the store's failures. Default: slog.Default().
	Logger *slog.Logger
}

// Mount plugs approvals into s, with o (nil for the defaults): the
// site's pipeline asks them for every agent's call to an action with
// approval, and the person decides on the pages served at o.Path + id,
// signed in, with the site's authenticator and Origin rule. Call it once,
// before the site serves; like site.Site.Mount, it panics after.
func Mount(s *site.Site, o *Options) {
	var opts Options
	if o != nil {
		opts = *o
	}
	if opts.Store == nil {
		opts.Store = NewMemory()
	}
	if opts.TTL <= 0 {
		opts.TTL = 10 * time.Minute
	}
	if opts.Path == "" {
		opts.Path = "/approvals/"
	}
	if !strings.HasSuffix(opts.Path, "/") {
		opts.Path += "/"
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	a := &approvals{desk: Desk{Store: opts.Store, TTL: opts.TTL, Logger: opts.Logger}, path: opts.Path}
	pages := &Page{Store: opts.Store, View: opts.View, Logger: opts.Logger, Fail: s.WriteError,
		Visitor: func(hr *http.Request) (Visitor, error) {
			r, err := s.NewPageRequest(hr)
			if err != nil {
				return Visitor{}, err
			}
			return Visitor{SignedIn: r.Caller.SignedIn, Person: r.Actor() == site.ActorPerson,
				Account: r.Caller.AccountID(), Request: r.Request}, nil
		},
		SignIn:     func(back string) string { return site.WithReturn(opts.SignInURL, back) },
		SameOrigin: func(hr *http.Request) bool { return s.CheckOrigin(hr) == nil },
		PageState:  func(hr *http.Request, path string) (any, map[string]any) { return pageState(s, hr, path) },
		Presence:   s.Presence(), PresenceRequest: s.NewPageRequest, Origin: s.Origin, PasskeysURL: opts.PasskeysURL,
	}
	s.MountApprovals(opts.Path+"{id}", a, pages)
}

// pageState loads the page an approval is for, as the visitor of hr would
// see it, with its entities; nil when it cannot be loaded.
func pageState(s *site.Site, hr *http.Request, path string) (any, map[string]any) {
	r := hr.WithContext(hr.Context()) // a copy; View routes it as a GET of the page
	r.URL = &url.URL{Path: path}
	v, err := s.View(r)
	if err != nil || v.State == nil {
		return nil, nil
	}
	return v.State, v.Entities()
}

// approvals is the site.Approvals Mount plugs in: a Desk on the store,
// with the approval pages at path.
type approvals struct {
	desk Desk
	path string
}

// approvalOf is the approval that call would be asked as.
func approvalOf(call site.ApprovalCall) Approval {
	return Approval{Account: call.Account, Credential: call.Credential, Agent: call.Agent, Page: call.Page,
		Action: call.Action, Input: Digest(call.Input), Summary: call.Summary, Basis: call.Basis,
		SignedBy: call.SignedBy, Fields: call.Fields, Why: call.Why}
}

// ask turns the desk's answer into the page the site sends the person to.
func (a *approvals) ask(k *Ask) *site.ApprovalAsk {
	return &site.ApprovalAsk{URL: a.path + k.ID, Waiting: k.Waiting, Why: k.Why}
}

// Admit implements site.Approvals.
func (a *approvals) Admit(ctx context.Context, call site.ApprovalCall, id string, confirm bool) (string, *site.ApprovalAsk, error) {
	used, ask, err := a.desk.Admit(ctx, id, confirm, approvalOf(call), time.Now())
	switch {
	case err != nil:
		return "", nil, err
	case ask != nil:
		return "", a.ask(ask), nil
	}
	return used.Basis, nil, nil
}

// Ask implements site.Approvals.
func (a *approvals) Ask(ctx context.Context, call site.ApprovalCall, why string) (*site.ApprovalAsk, error) {
	ask, err := a.desk.Ask(ctx, approvalOf(call), why, time.Now())
	if err != nil {
		return nil, err
	}
	return a.ask(ask), nil
}

// Status implements site.Approvals: an approval past its time that was
// not used is "expired".
func (a *approvals) Status(ctx context.Context, account, credential, id string) (string, error) {
	ap, err := a.desk.Store.Get(ctx, id)
	if errors.Is(err, ErrNotFound) {
		return "", site.ErrApprovalNotFound
	}
	if err != nil {
		return "", err
	}
	if ap.Account != account || (ap.Credential != "" && ap.Credential != credential) {
		return "", site.ErrApprovalNotFound
	}
	if ap.State != Used && time.Now().After(ap.Expires) {
		return "expired", nil
	}
	return string(ap.State), nil
}
