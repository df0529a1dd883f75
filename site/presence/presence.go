// Package presence proves, with passkeys (WebAuthn), that the person is
// there: not an agent that runs in their browser, which holds their
// cookie and can click their buttons, but not their finger or their PIN.
//
// [Passkeys] proves presence for a site (Mount) and its approval page
// (approval.Prover). For an account with a passkey, a
// people-only action (site.Action.PeopleOnly) and an approval on the
// approval page (package site/approval) need a user-verified assertion of
// one of its passkeys whose challenge binds exactly what will run
// (site.Binding: the site, the page, the action, the whole input,
// the summary shown, the credential that asked, the approval and its
// expiry), made on this site, once. The server checks the origin, the RP
// ID, the user-verified flag, the signature, the signature counter, and
// single use. An account without a passkey works as before.
//
// [Passkeys.Register] and [Passkeys.FinishRegistration] add a passkey;
// [Passkeys.SignIn] and [Passkeys.FinishSignIn] sign in with one. [Mount]
// serves what the pages' script asks for, and the script itself.
//
// This package is a module of its own, so that a site without passkeys
// downloads no WebAuthn library.
package presence

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/go-webauthn/webauthn/protocol"
	"github.com/go-webauthn/webauthn/webauthn"

	"github.com/affordances-go/affordances/site"
)

// Options configure Passkeys.
type Options struct {
	// RPID is the relying party's id: the site's domain, such as
	// shop.example (a domain, never an IP address: use localhost in
	// development). Required.
	RPID string
	// RPName is the site's name, as the browser shows it. Required.
	RPName string
	// Origins are the origins the ceremonies may come from, such as
	// https://shop.example. Required.
	Origins []string
	// Store keeps the passkeys and the challenges. Default: in memory.
	Store Store
	// ChallengeTTL is how long a challenge can be answered. Default: five
	// minutes.
	ChallengeTTL time.Duration
	// CoolingOff is how long a new passkey cannot remove an older one
	// (Remove): an authenticator slipped in by someone else cannot at
	// once lock the person's own passkeys out, and the person sees it on
	// their account page and at their next sign-in meanwhile. Default: 24
	// hours; a negative value turns the rule off.
	CoolingOff time.Duration
	// CheckRegister, when set, checks the form that adds a passkey before
	// the browser makes one (the password typed again, say): the page's
	// script posts the form's fields with its request for the options,
	// and an error of the site's (site.Invalid for a field,
	// site.RateLimited) is answered with its status and message, which
	// the script shows beside the field. No passkey is made then, so the
	// browser keeps none that the site would refuse. The action that
	// stores the passkey must check the same again.
	CheckRegister func(r *site.Request, form url.Values) error
	// Accounts names an account for the browser's passkey dialogs (its
	// email, say), when registering. Default: the account's id.
	Accounts func(ctx context.Context, account string) (name, displayName string)
}

// Passkeys proves presence with passkeys: Mount plugs it into a site as a
// gate of step 6, and it is an approval.Prover.
type Passkeys struct {
	o  Options
	wa *webauthn.WebAuthn
}

// New returns Passkeys for opts, or an error for options that cannot
// work (no RP ID, an origin that is not one).
func New(opts Options) (*Passkeys, error) {
	if opts.Store == nil {
		opts.Store = NewMemory()
	}
	if opts.ChallengeTTL <= 0 {
		opts.ChallengeTTL = 5 * time.Minute
	}
	if opts.CoolingOff == 0 {
		opts.CoolingOff = 24 * time.Hour
	}
	wa, err := webauthn.New(&webauthn.Config{RPID: opts.RPID, RPDisplayName: opts.RPName, RPOrigins: opts.Origins,
		Timeouts: webauthn.TimeoutsConfig{
			Login:        webauthn.TimeoutConfig{Enforce: true, Timeout: opts.ChallengeTTL, TimeoutUVD: opts.ChallengeTTL},
			Registration: webauthn.TimeoutConfig{Enforce: true, Timeout: opts.ChallengeTTL, TimeoutUVD: opts.ChallengeTTL},
		}})
	if err != nil {
		return nil, fmt.Errorf("presence: %w", err)
	}
	return &Passkeys{o: opts, wa: wa}, nil
}

// Store returns the passkeys' store.
func (p *Passkeys) Store() Store { return p.o.Store }

// user is an account as WebAuthn sees it: its handle is a hash of the
// account's id, so that no personal data reaches an authenticator.
type user struct {
	account, name, display string
	creds                  []webauthn.Credential
}

func (u *user) WebAuthnID() []byte                         { return handle(u.account) }
func (u *user) WebAuthnName() string                       { return u.name }
func (u *user) WebAuthnDisplayName() string                { return u.display }
func (u *user) WebAuthnCredentials() []webauthn.Credential { return u.creds }

// handle is the WebAuthn user handle of an account.
func handle(account string) []byte {
	h := sha256.Sum256([]byte("affordances presence user\x00" + account))
	return h[:]
}

// userOf loads an account's passkeys.
func (p *Passkeys) userOf(ctx context.Context, account string) (*user, []Credential, error) {
	stored, err := p.o.Store.Credentials(ctx, account)
	if err != nil {
		return nil, nil, fmt.Errorf("presence: reading passkeys: %w", err)
	}
	u := &user{account: account, name: account, display: account}
	if p.o.Accounts != nil {
		u.name, u.display = p.o.Accounts(ctx, account)
	}
	for _, c := range stored {
		var wc webauthn.Credential
		if err := json.Unmarshal(c.Data, &wc); err != nil {
			return nil, nil, fmt.Errorf("presence: a stored passkey: %w", err)
		}
		u.creds = append(u.creds, wc)
	}
	return u, stored, nil
}

// Has reports whether the account has a passkey.
func (p *Passkeys) Has(ctx context.Context, account string) (bool, error) {
	cs, err := p.o.Store.Credentials(ctx, account)
	return len(cs) > 0, err
}

// Required implements approval.Prover: the person must prove presence when
// their account has a passkey.
func (p *Passkeys) Required(r *site.Request) (bool, error) {
	if !r.Caller.SignedIn {
		return false, nil
	}
	return p.Has(r.Context(), r.Caller.AccountID())
}

// challengeFor is the challenge of a nonce and a binding: what the
// authenticator signs, so that its signature holds only for that binding.
func challengeFor(nonce string, b site.Binding) []byte {
	h := sha256.New()
	h.Write([]byte("affordances presence\x00" + nonce + "\x00"))
	h.Write(b.Digest())
	return h.Sum(nil)
}

// newNonce is a challenge's id: 192 random bits, base64url.
func newNonce() string {
	b := make([]byte, 24)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// Ask is what the page's script hands the browser: WebAuthn's options
// (publicKey, as navigator.credentials takes them once its byte fields
// are decoded) and the nonce to post back with the answer. An empty Ask
// (no PublicKey) says nothing is asked: the form is posted as it is.
type Ask struct {
	PublicKey any    `json:"publicKey,omitempty"`
	Nonce     string `json:"nonce,omitempty"`
	Mediation string `json:"mediation,omitempty"`
}

// Challenge implements approval.Prover: the options of an assertion by one
// of the person's passkeys, user verification required, whose challenge
// binds b.
func (p *Passkeys) Challenge(r *site.Request, b site.Binding) (json.RawMessage, error) {
	ctx := r.Context()
	u, _, err := p.userOf(ctx, r.Caller.AccountID())
	if err != nil {
		return nil, err
	}
	if len(u.creds) == 0 {
		return json.RawMessage(`{}`), nil
	}
	nonce := newNonce()
	opts, session, err := p.wa.BeginLogin(u, webauthn.WithUserVerification(protocol.VerificationRequired),
		webauthn.WithChallenge(challengeFor(nonce, b)))
	if err != nil {
		return nil, fmt.Errorf("presence: beginning an assertion: %w", err)
	}
	if err := p.put(ctx, nonce, u.account, "assert", session); err != nil {
		return nil, err
	}
	return json.Marshal(Ask{PublicKey: opts.Response, Nonce: nonce})
}

// put stores a ceremony's session under its nonce.
func (p *Passkeys) put(ctx context.Context, nonce, account, kind string, session *webauthn.SessionData) error {
	s, err := json.Marshal(session)
	if err != nil {
		return err
	}
	if err := p.o.Store.PutChallenge(ctx, nonce, Challenge{Account: account, Kind: kind, Session: s, Expires: time.Now().Add(p.o.ChallengeTTL)}); err != nil {
		return fmt.Errorf("presence: storing a challenge: %w", err)
	}
	return nil
}

// take takes a ceremony's session by its nonce, once, for account and of
// kind; a refusal is a *Refusal.
func (p *Passkeys) take(ctx context.Context, nonce, account, kind string) (webauthn.SessionData, error) {
	var session webauthn.SessionData
	ch, err := p.o.Store.TakeChallenge(ctx, nonce)
	switch {
	case errors.Is(err, ErrNotFound):
		return session, refuse("this confirmation was used already, or never asked for: try again")
	case err != nil:
		return session, fmt.Errorf("presence: taking a challenge: %w", err)
	case ch.Kind != kind || (account != "" && ch.Account != account):
		return session, refuse("this confirmation was asked for something else")
	case time.Now().After(ch.Expires):
		return session, refuse("this confirmation took too long: try again")
	}
	if err := json.Unmarshal(ch.Session, &session); err != nil {
		return session, fmt.Errorf("presence: a stored challenge: %w", err)
	}
	return session, nil
}

func refuse(reason string) error { return &Refusal{reason: reason} }

// Refusal is a proof of presence that is refused: Reason says why, for the
// person. Any other error of Passkeys is a failure of its own.
type Refusal struct{ reason string }

func (e *Refusal) Error() string { return "presence: " + e.reason }

// Reason says why the proof was refused, in words for the person.
func (e *Refusal) Reason() string { return e.reason }

// Proof is what the page's script posts in site.FormProofField: the
// nonce of the challenge it was given, and the browser's answer, as
// WebAuthn's JSON encoding of a PublicKeyCredential.
type Proof struct {
	Nonce      string          `json:"nonce"`
	Credential json.RawMessage `json:"credential"`
}

// Verify implements approval.Prover: the proof must answer a challenge
// given to this account for exactly b, not used before, with one of its
// passkeys, on this site's origin and RP ID, user verified, its
// signature counter moving on.
func (p *Passkeys) Verify(r *site.Request, b site.Binding, proof string) error {
	_, err := p.verify(r, b, proof)
	return err
}

// verify is Verify, returning the passkey that answered.
func (p *Passkeys) verify(r *site.Request, b site.Binding, proof string) (Credential, error) {
	var pr Proof
	if err := json.Unmarshal([]byte(proof), &pr); err != nil || pr.Nonce == "" || len(pr.Credential) == 0 {
		return Credential{}, refuse("the confirmation could not be read")
	}
	ctx := r.Context()
	account := r.Caller.AccountID()
	session, err := p.take(ctx, pr.Nonce, account, "assert")
	if err != nil {
		return Credential{}, err
	}
	// The challenge of what runs now: an answer to a challenge given
	// for anything else does not match it.
	session.Challenge = base64.RawURLEncoding.EncodeToString(challengeFor(pr.Nonce, b))
	session.UserVerification = protocol.VerificationRequired
	parsed, err := protocol.ParseCredentialRequestResponseBytes(pr.Credential)
	if err != nil {
		return Credential{}, refuse("the passkey's answer could not be read")
	}
	u, stored, err := p.userOf(ctx, account)
	if err != nil {
		return Credential{}, err
	}
	id, err := p.validate(ctx, u, session, parsed)
	if err != nil {
		return Credential{}, err
	}
	for _, c := range stored {
		if bytes.Equal(c.ID, id) {
			return c, nil
		}
	}
	return Credential{}, refuse("the passkey was removed meanwhile")
}

// validate checks an assertion for u and records its new counter; it
// returns the id of the passkey that answered.
func (p *Passkeys) validate(ctx context.Context, u *user, session webauthn.SessionData, parsed *protocol.ParsedCredentialAssertionData) ([]byte, error) {
	cred, err := p.wa.ValidateLogin(u, session, parsed)
	if err != nil {
		return nil, refuse(reason(err))
	}
	if cred.Authenticator.CloneWarning {
		return nil, refuse("the passkey's signature counter went back: it may have been copied")
	}
	data, err := json.Marshal(cred)
	if err != nil {
		return nil, err
	}
	if err := p.o.Store.UpdateCredential(ctx, u.account, cred.ID, data); err != nil {
		return nil, fmt.Errorf("presence: recording the counter: %w", err)
	}
	return cred.ID, nil
}

// reason says why WebAuthn refused an answer, in words for the person.
func reason(err error) string {
	var pe *protocol.Error
	if errors.As(err, &pe) && pe.Details != "" {
		return "the passkey's answer was refused (" + pe.Details + ")"
	}
	return "the passkey's answer was refused"
}
