package presence

import (
	"context"
	_ "embed" // the pages' script
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"

	"github.com/affordances-go/affordances/internal/jsfile"
	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site"
	"github.com/affordances-go/affordances/site/ratelimit"
)

//go:embed presence.js
var script []byte

// The paths Mount serves.
const (
	// Path is the challenge of a people-only form: a POST of the fields
	// the form will post, and _page, its page's path.
	Path = "/_affordances/presence"
	// RegisterPath is the options of a new passkey (a POST).
	RegisterPath = Path + "/register"
	// SignInPath is the options of a sign-in with a passkey (a POST).
	SignInPath = Path + "/signin"
	// ScriptPath is the pages' script, which every page the site renders
	// loads ({{.Scripts}}).
	ScriptPath = "/_affordances/presence.js"
)

// ScriptIntegrity is the script's Subresource Integrity value.
var ScriptIntegrity = jsfile.Integrity(script)

// ScriptTag is the script's tag, for the <head> of the pages with
// people-only forms, the approval page and the sign-in page.
var ScriptTag = jsfile.Tag(ScriptPath, ScriptIntegrity)

// Mount serves what the pages' script asks for on s: the challenge of a
// people-only form (Path), the options of a new passkey (RegisterPath)
// and of a sign-in (SignInPath), and the script (ScriptPath). Challenges
// are given only to a request with the site's Origin; a new passkey's
// options only to a signed-in person. A failure is answered, and
// logged, as the site answers every extension's (site.Site.WriteError).
// And it adds p's gate to step 6 (site.StagePresence): the person's own
// call of an action that needs them (people-only, or with approval) runs,
// for a person who has a passkey, only with an assertion bound to exactly
// that call. For the approval page, give p to approval.Options.Presence.
func Mount(s *site.Site, p *Passkeys) {
	m := &mounted{s: s, p: p}
	s.Extend(site.ExtensionFunc(func(x *site.Extender) {
		x.Door(Path, http.HandlerFunc(m.challenge))
		x.Door(RegisterPath, http.HandlerFunc(m.register))
		x.Door(SignInPath, http.HandlerFunc(m.signIn))
		x.Script(x.ServeScript(ScriptPath, script))
		x.Gate(site.StagePresence, m.gate)
	}))
}

// gate is p's gate at step 6: a person who has a passkey proves that it
// is them, with an assertion bound to exactly the call; nothing runs
// without it.
func (m *mounted) gate(r *site.Request, c *site.Consent) error {
	need, err := m.p.Required(r)
	if err != nil {
		return fmt.Errorf("checking presence: %w", err)
	}
	if !need {
		return nil
	}
	if c.Proof == "" {
		return site.Forbidden("confirm with your passkey: this needs you, not only your browser")
	}
	by, err := m.p.verify(r, c.Binding(r, m.s.Origin(r.Request)), c.Proof)
	if err != nil {
		var refused *Refusal
		if errors.As(err, &refused) {
			return site.Forbidden("your passkey did not confirm this: %s", refused.Reason())
		}
		return fmt.Errorf("verifying presence: %w", err)
	}
	r.Request = r.Request.WithContext(context.WithValue(r.Context(), confirmedKey{}, by))
	return nil
}

// confirmedKey keys the passkey that confirmed a call in its context.
type confirmedKey struct{}

// ConfirmedBy returns the passkey with which the person confirmed r's
// call at step 6 (Mount's gate), for the action that runs: false when no
// passkey confirmed it (the person has none, or the action needs none).
func ConfirmedBy(r *site.Request) (Credential, bool) {
	c, ok := r.Context().Value(confirmedKey{}).(Credential)
	return c, ok
}

type mounted struct {
	s *site.Site
	p *Passkeys
}

// challengeLimit bounds the challenges one client address may ask for, on
// every endpoint of the ceremony together: a person signs in, approves
// or adds a passkey a few times a minute at most.
var challengeLimit = ratelimit.PerMinute(20, 10)

// guard answers a request that may not ask: not a POST, or not from this
// site; it returns the request's form.
func (m *mounted) guard(w http.ResponseWriter, hr *http.Request) (url.Values, bool) {
	w.Header().Set("Cache-Control", "no-store")
	if hr.Method != http.MethodPost {
		w.Header().Set("Allow", "POST")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return nil, false
	}
	if hr.Header.Get("Origin") == "" || m.s.CheckOrigin(hr) != nil {
		http.Error(w, "a challenge is given to this site's own pages only", http.StatusForbidden)
		return nil, false
	}
	// Every challenge is stored until it is answered or expires: a client
	// address asks for a bounded number, signed in or not.
	if err := m.s.LimitByAddress(hr, Path, challengeLimit); err != nil {
		m.fail(w, hr, err)
		return nil, false
	}
	hr.Body = http.MaxBytesReader(w, hr.Body, m.s.MaxBodyBytes())
	if err := hr.ParseForm(); err != nil {
		http.Error(w, "the form could not be read", http.StatusBadRequest)
		return nil, false
	}
	return hr.PostForm, true
}

// challenge answers the challenge of a people-only form: {} when the
// person has no passkey.
func (m *mounted) challenge(w http.ResponseWriter, hr *http.Request) {
	form, ok := m.guard(w, hr)
	if !ok {
		return
	}
	page := form.Get("_page")
	form.Del("_page")
	r, c, err := m.s.FormConsent(hr, page, form)
	if err != nil {
		m.fail(w, hr, err)
		return
	}
	if !r.Caller.SignedIn {
		http.Error(w, "sign in first", http.StatusUnauthorized)
		return
	}
	ask, err := m.p.Challenge(r, c.Binding(r, m.s.Origin(hr)))
	m.answer(w, hr, ask, err)
}

// register answers the options of a new passkey for the signed-in person.
func (m *mounted) register(w http.ResponseWriter, hr *http.Request) {
	form, ok := m.guard(w, hr)
	if !ok {
		return
	}
	r, err := m.s.NewRequest(hr)
	if err != nil {
		m.fail(w, hr, err)
		return
	}
	if !r.Caller.SignedIn || r.Caller.Mode != "cookie" {
		http.Error(w, "sign in first, in this browser", http.StatusUnauthorized)
		return
	}
	if check := m.p.o.CheckRegister; check != nil {
		for _, f := range []string{"credential", "nonce", site.FormProofField} {
			form.Del(f)
		}
		if err := check(r, form); err != nil {
			m.refuse(w, hr, err)
			return
		}
	}
	ask, err := m.p.Register(hr.Context(), r.Caller.AccountID())
	m.answer(w, hr, ask, err)
}

// refusal is how the register endpoint answers a form that CheckRegister
// refused, for the page's script to show: the message, and the fields'.
type refusal struct {
	Message string           `json:"message"`
	Issues  []protocol.Issue `json:"issues,omitempty"`
}

// refuse answers a refusal of CheckRegister: the site's own errors as
// JSON with their status, anything else as a failure.
func (m *mounted) refuse(w http.ResponseWriter, hr *http.Request, err error) {
	var e *site.Error
	if !errors.As(err, &e) {
		m.fail(w, hr, err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(e.Status())
	json.NewEncoder(w).Encode(refusal{Message: e.Message(), Issues: e.Issues()})
}

// signIn answers the options of a sign-in with a passkey.
func (m *mounted) signIn(w http.ResponseWriter, hr *http.Request) {
	if _, ok := m.guard(w, hr); !ok {
		return
	}
	ask, err := m.p.SignIn(hr.Context())
	m.answer(w, hr, ask, err)
}

func (m *mounted) answer(w http.ResponseWriter, hr *http.Request, ask json.RawMessage, err error) {
	if err != nil {
		m.fail(w, hr, err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(ask)
}

// fail answers an error: the site's own with its status, else 500, logged.
func (m *mounted) fail(w http.ResponseWriter, hr *http.Request, err error) {
	m.s.WriteError(w, hr, err)
}
