package presence

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/go-webauthn/webauthn/protocol"
	"github.com/go-webauthn/webauthn/webauthn"

	"github.com/affordances-go/affordances/site"
	"github.com/affordances-go/affordances/site/safetext"
)

// Register begins adding a passkey to account: the options of a
// discoverable credential, user verification required, none of the
// account's passkeys again. The site asks it only of the person, signed
// in on its own page; what makes the passkey theirs is the people-only
// action that finishes it (FinishRegistration): the account's password
// typed again for its first passkey, a proof of presence by an existing
// one for any later (Mount), so that an agent that drives
// the browser cannot enrol an authenticator of its own.
func (p *Passkeys) Register(ctx context.Context, account string) (json.RawMessage, error) {
	u, _, err := p.userOf(ctx, account)
	if err != nil {
		return nil, err
	}
	exclude := make([]protocol.CredentialDescriptor, 0, len(u.creds))
	for _, c := range u.creds {
		exclude = append(exclude, c.Descriptor())
	}
	opts, session, err := p.wa.BeginRegistration(u, webauthn.WithExclusions(exclude),
		webauthn.WithAuthenticatorSelection(protocol.AuthenticatorSelection{
			ResidentKey: protocol.ResidentKeyRequirementRequired, UserVerification: protocol.VerificationRequired}))
	if err != nil {
		return nil, fmt.Errorf("presence: beginning a registration: %w", err)
	}
	nonce := newNonce()
	if err := p.put(ctx, nonce, account, "register", session); err != nil {
		return nil, err
	}
	return json.Marshal(Ask{PublicKey: opts.Response, Nonce: nonce})
}

// FinishRegistration checks the browser's answer to Register's options
// (response: WebAuthn's JSON of the new PublicKeyCredential), once, and
// stores the passkey under name. A refusal is a *Refusal.
func (p *Passkeys) FinishRegistration(ctx context.Context, account, nonce string, response json.RawMessage, name string) (Credential, error) {
	session, err := p.take(ctx, nonce, account, "register")
	if err != nil {
		return Credential{}, err
	}
	session.UserVerification = protocol.VerificationRequired
	parsed, err := protocol.ParseCredentialCreationResponseBytes(response)
	if err != nil {
		return Credential{}, refuse("the new passkey's answer could not be read")
	}
	u, _, err := p.userOf(ctx, account)
	if err != nil {
		return Credential{}, err
	}
	cred, err := p.wa.CreateCredential(u, session, parsed)
	if err != nil {
		return Credential{}, refuse(reason(err))
	}
	data, err := json.Marshal(cred)
	if err != nil {
		return Credential{}, err
	}
	name = strings.TrimSpace(name)
	if name == "" {
		name = "passkey " + time.Now().UTC().Format("2006-01-02 15:04")
	}
	c := Credential{ID: cred.ID, Name: name, Created: time.Now(), Data: data}
	if err := p.o.Store.AddCredential(ctx, account, c); err != nil {
		return Credential{}, fmt.Errorf("presence: storing a passkey: %w", err)
	}
	return c, nil
}

// Remove removes one of the caller's passkeys (ErrNotFound when it has no
// such passkey). Call it from a people-only action: with Mount, the
// person confirmed the call with one of their passkeys, and a passkey
// added less than Options.CoolingOff ago cannot remove an older one (a
// *Refusal that says until when). So an authenticator someone else
// slipped in cannot at once lock the person out of their own.
func (p *Passkeys) Remove(r *site.Request, id []byte) error {
	ctx, account := r.Context(), r.Caller.AccountID()
	if by, ok := ConfirmedBy(r); ok && p.o.CoolingOff > 0 && !bytes.Equal(by.ID, id) {
		until := by.Created.Add(p.o.CoolingOff)
		if time.Now().Before(until) {
			stored, err := p.o.Store.Credentials(ctx, account)
			if err != nil {
				return fmt.Errorf("presence: reading passkeys: %w", err)
			}
			for _, c := range stored {
				if bytes.Equal(c.ID, id) && c.Created.Before(by.Created) {
					return refuse(fmt.Sprintf("%s was added on %s, and a passkey that new cannot remove an older one until %s: confirm with %s instead",
						safetext.Quote(by.Name), by.Created.UTC().Format("2 Jan 15:04 UTC"), until.UTC().Format("2 Jan 15:04 UTC"), safetext.Quote(c.Name)))
				}
			}
		}
	}
	return p.o.Store.RemoveCredential(ctx, account, id)
}

// SignIn begins a sign-in with a passkey: the options of an assertion by
// any passkey of this site the browser holds, user verification required.
func (p *Passkeys) SignIn(ctx context.Context) (json.RawMessage, error) {
	opts, session, err := p.wa.BeginDiscoverableLogin(webauthn.WithUserVerification(protocol.VerificationRequired))
	if err != nil {
		return nil, fmt.Errorf("presence: beginning a sign-in: %w", err)
	}
	nonce := newNonce()
	if err := p.put(ctx, nonce, "", "signin", session); err != nil {
		return nil, err
	}
	return json.Marshal(Ask{PublicKey: opts.Response, Nonce: nonce})
}

// FinishSignIn checks the browser's answer to SignIn's options, once,
// and returns the account whose passkey made it. A refusal is a
// *Refusal.
func (p *Passkeys) FinishSignIn(ctx context.Context, nonce string, response json.RawMessage) (string, error) {
	session, err := p.take(ctx, nonce, "", "signin")
	if err != nil {
		return "", err
	}
	session.UserVerification = protocol.VerificationRequired
	parsed, err := protocol.ParseCredentialRequestResponseBytes(response)
	if err != nil {
		return "", refuse("the passkey's answer could not be read")
	}
	account, err := p.o.Store.AccountOf(ctx, parsed.RawID)
	if errors.Is(err, ErrNotFound) {
		return "", refuse("this passkey is not registered here")
	}
	if err != nil {
		return "", fmt.Errorf("presence: finding a passkey: %w", err)
	}
	u, _, err := p.userOf(ctx, account)
	if err != nil {
		return "", err
	}
	session.UserID = u.WebAuthnID() // a discoverable sign-in learns the account from the passkey
	if _, err := p.validate(ctx, u, session, parsed); err != nil {
		return "", err
	}
	return account, nil
}
