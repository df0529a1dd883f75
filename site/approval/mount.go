package approval

import (
	"fmt"
	"html/template"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/affordances-go/affordances/internal/route"
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
	// Presence, when set, asks a person who has a passkey to confirm
	// their approval with it ([Prover]; package site/presence's Passkeys
	// is one). Default: none, and the page says that an agent in the
	// browser could press its button.
	Presence Prover
	// PasskeysURL is where a person adds a passkey (their account page),
	// for the approval page to link to when they have none and the site
	// has Presence. Default: no link.
	PasskeysURL string
	// Check, when set, is asked before the person's approval is taken,
	// after Presence: the site's own condition on the person, such as a
	// recent sign-in with the password for a person without a passkey. An
	// error made with package site's helpers (site.Forbidden) refuses the
	// approval with its message on the page; any other fails it (500).
	Check func(r *site.Request) error
	// Logger receives the store's failures. Default: slog.Default().
	Logger *slog.Logger
}

// Mount plugs approvals into s, with o (nil for the defaults), through
// the site's seam: a gate of site.StageApproval decides every agent's call
// to an action with approval, and the person decides on the pages served at o.Path + id,
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
		Presence:   opts.Presence, PresenceRequest: s.NewPageRequest, Origin: s.Origin, PasskeysURL: opts.PasskeysURL, Check: opts.Check,
		Scripts: s.Scripts,
	}
	s.Extend(site.ExtensionFunc(func(x *site.Extender) {
		x.Door(opts.Path+"{id}", pages)
		x.Gate(site.StageApproval, a.gate)
		x.SetValue(mountedKey{}, a)
	}))
}

// mountedKey keeps a site's approvals on the site, for [Status].
type mountedKey struct{}

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

// approvals is what Mount plugs in: a Desk on the store, with the
// approval pages at path.
type approvals struct {
	desk Desk
	path string
}

// approvalOf is the approval that the call c describes would be asked as,
// for the caller of r.
func approvalOf(r *site.Request, c *site.Consent) Approval {
	return Approval{Account: r.Caller.AccountID(), Credential: r.Caller.ID, Agent: r.Caller.Label, Page: c.Page,
		Action: c.Action, Input: Digest(c.Value), Summary: c.Summary, Basis: c.Basis,
		SignedBy: r.Caller.Agent, Fields: c.Fields, Why: c.Beyond}
}

// gate is the approvals' gate at step 6 (site.StageApproval): the call
// runs on the person's approval of exactly it, or the person is asked on
// an approval page, a new one or the one still pending.
func (a *approvals) gate(r *site.Request, c *site.Consent) error {
	call := approvalOf(r, c)
	now := time.Now()
	if c.Reask != "" {
		ask, err := a.desk.Ask(r.Context(), call, c.Reask, now)
		if err != nil {
			return fmt.Errorf("asking for an approval: %w", err)
		}
		return a.asked(c.Summary, ask)
	}
	used, ask, err := a.desk.Admit(r.Context(), c.Approval, c.Confirmed, call, now)
	switch {
	case err != nil:
		return fmt.Errorf("checking an approval: %w", err)
	case ask != nil:
		return a.asked(c.Summary, ask)
	}
	c.Grant(used.Basis)
	return nil
}

// asked is the answer to a call sent to an approval page. The message is
// for the person; how an agent proceeds (the approvalUrl, the call again
// with the approval) is the protocol's, and each door says it in its own
// terms.
func (a *approvals) asked(summary string, k *Ask) error {
	msg := summary
	switch {
	case k.Waiting:
		msg = "Waiting for the person's approval: " + summary
	case k.Why != "":
		msg = k.Why + " Nothing ran. " + summary
	}
	return site.AskPerson(a.path+k.ID, msg)
}

// Status returns where the approval id (its id, its page's path or URL)
// stands for the caller of hr on s: pending, approved, declined, used or
// expired (an approval past its time that was not used). For a door that
// waits for the person's decision (the MCP endpoint). An approval of
// another account, or of another credential of the same account, is
// [ErrNotFound], as is any approval on a site where Mount plugged none
// in. A caller the site refuses is its error (a *site.Error).
func Status(s *site.Site, hr *http.Request, id string) (string, error) {
	r, err := s.NewRequest(hr)
	if err != nil {
		return "", err
	}
	a, ok := s.Value(mountedKey{}).(*approvals)
	if !ok {
		return "", ErrNotFound
	}
	ap, err := a.desk.Store.Get(hr.Context(), route.LastSegment(id))
	if err != nil {
		return "", err
	}
	if ap.Account != r.Caller.AccountID() || (ap.Credential != "" && ap.Credential != r.Caller.ID) {
		return "", ErrNotFound
	}
	if ap.State != Used && time.Now().After(ap.Expires) {
		return "expired", nil
	}
	return string(ap.State), nil
}
