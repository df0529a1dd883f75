package shop

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"

	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site"
	"github.com/affordances-go/affordances/site/presence"
	"github.com/affordances-go/affordances/site/safetext"
)

// PasskeyList is the account's passkeys, on the account page.
type PasskeyList struct {
	// Offered says whether the shop offers passkeys here (it has an
	// origin for them).
	Offered bool      `json:"offered"`
	Keys    []Passkey `json:"keys"`
}

// Passkey is one passkey, as the account page lists it.
type Passkey struct {
	ID      string `json:"id"`
	Name    string `json:"name"`
	Created string `json:"created"`
	// Browser is the browser it was added from ("Chrome on Linux"), so
	// that the person sees a passkey they did not add.
	Browser string `json:"browser,omitempty"`
}

// AddPasskey is the input of addPasskey: the new passkey, as the page's
// script made it (credential, nonce), its name, and the account's
// password typed again.
type AddPasskey struct {
	Name       string `json:"name,omitempty" title:"Name" description:"what you call it, such as my phone" maxLength:"40"`
	Password   string `json:"password" title:"Your password" description:"typed again for every new passkey" minLength:"1" maxLength:"200"`
	Credential string `json:"credential" title:"Passkey" description:"made by your browser" minLength:"1" maxLength:"20000"`
	Nonce      string `json:"nonce" title:"Challenge" minLength:"1" maxLength:"100"`
}

// Validate refuses a name with control characters.
func (in AddPasskey) Validate() error {
	if safetext.HasUnsafe(in.Name) {
		return site.Invalid("/name", "must not contain control characters")
	}
	return nil
}

// RemovePasskey is the input of removePasskey.
type RemovePasskey struct {
	ID string `json:"id" title:"Passkey" minLength:"1" maxLength:"200"`
}

// SignInWithPasskey is the input of signInWithPasskey, as the login
// page's script fills it.
type SignInWithPasskey struct {
	Credential string `json:"credential" minLength:"1" maxLength:"20000"`
	Nonce      string `json:"nonce" minLength:"1" maxLength:"100"`
}

// passkeyActions registers the account page's passkey actions: for the
// person only, in their own browser. Adding a passkey needs the account's
// password typed again (an agent that rides the session has not got it)
// and, once one exists, a proof of presence by an existing passkey
// (presence.Mount), as does removing one, so that an agent that drives
// the browser cannot enrol an authenticator of its own.
func (a *App) passkeyActions(p *site.Page) {
	if a.passkeys == nil {
		return
	}
	site.Handle(p, site.Action{Name: "addPasskey", Description: "Add a passkey: your phone, your computer or a security key",
		Expose: protocol.ExposeSession, Effects: site.Effects(passkeysKey), PeopleOnly: true}, a.addPasskey)
	site.Handle(p, site.Action{Name: "removePasskey", Description: "Remove a passkey",
		Expose: protocol.ExposeSession, Effects: site.Effects(passkeysKey), PeopleOnly: true}, a.removePasskey)
}

func (a *App) addPasskey(r *site.Request, in AddPasskey) (site.Done, error) {
	ctx := r.Context()
	account := r.Caller.AccountID()
	if err := a.checkPassword(r, in.Password); err != nil {
		return site.Done{}, err
	}
	c, err := a.passkeys.FinishRegistration(ctx, account, in.Nonce, json.RawMessage(in.Credential), in.Name)
	var pe *presence.Refusal
	if errors.As(err, &pe) {
		return site.Done{}, site.Unavailable("The passkey was not added: %s.", pe.Reason())
	}
	if err != nil {
		return site.Done{}, err
	}
	if err := a.store.SetPasskeyBrowser(ctx, account, c.ID, browserOf(r.UserAgent())); err != nil {
		return site.Done{}, err
	}
	return site.Done{Message: fmt.Sprintf("Passkey %s added. From now on, approving an agent's request and changing tokens need it.", safetext.Quote(c.Name))}, nil
}

// checkPasskeyForm is presence's CheckRegister: the password of the form
// that adds a passkey is checked before the browser makes one, so that a
// wrong password leaves no passkey in the browser that the shop refused.
func (a *App) checkPasskeyForm(r *site.Request, form url.Values) error {
	return a.checkPassword(r, form.Get("password"))
}

// checkPassword checks the password typed again for a new passkey (an
// agent that rides the session, or that swapped the page the person is
// touching, has not got it), within the sign-in failure limit: a wrong
// password here is a failed sign-in, and once they are used up no
// password is even checked.
func (a *App) checkPassword(r *site.Request, password string) error {
	sh := shopperOf(r)
	if sh.User == nil {
		return site.Invalid("/password", "sign in first")
	}
	key, addr := hashSecret(NormalizeEmail(sh.User.Email)), a.site.ClientAddr(r.Request)
	if wait, ok := a.failures.allow(key, addr, true); !ok {
		return site.RateLimited(wait, "Too many wrong passwords for this account. Try again in %s.", roughly(wait))
	}
	if password == "" {
		return site.Invalid("/password", "type your password: a new passkey needs it")
	}
	if _, err := a.store.Authenticate(r.Context(), sh.User.Email, password); errors.Is(err, ErrBadCredentials) {
		a.failures.add(key, addr)
		return site.Invalid("/password", "this is not your password: a new passkey needs it")
	} else if err != nil {
		return err
	}
	return nil
}

func (a *App) removePasskey(r *site.Request, in RemovePasskey) (site.Done, error) {
	id, err := keyID.DecodeString(in.ID)
	if err != nil {
		return site.Done{}, site.NotFound("you have no such passkey")
	}
	err = a.passkeys.Remove(r, id)
	var pe *presence.Refusal
	switch {
	case errors.Is(err, presence.ErrNotFound):
		return site.Done{}, site.NotFound("you have no such passkey")
	case errors.As(err, &pe):
		return site.Done{}, site.Unavailable("The passkey was not removed: %s.", pe.Reason())
	case err != nil:
		return site.Done{}, err
	}
	left, err := a.passkeys.Has(r.Context(), r.Caller.AccountID())
	if err != nil {
		return site.Done{}, err
	}
	if !left {
		return site.Done{Message: fmt.Sprintf("Passkey removed. You have no passkey now: approving an agent's request and changing tokens need your password instead, typed again if you signed in more than %d minutes ago.", int(recentWindow.Minutes()))}, nil
	}
	return site.Done{Message: "Passkey removed."}, nil
}

// signInWithPasskey signs in the account whose passkey answered.
func (a *App) signInWithPasskey(r *site.Request, in SignInWithPasskey) (site.Done, error) {
	ctx := r.Context()
	account, err := a.passkeys.FinishSignIn(ctx, in.Nonce, json.RawMessage(in.Credential))
	var pe *presence.Refusal
	if errors.As(err, &pe) {
		return site.Done{}, site.Unavailable("Not signed in: %s.", pe.Reason())
	}
	if err != nil {
		return site.Done{}, err
	}
	id, ok := userID(account)
	if !ok {
		return site.Done{}, fmt.Errorf("a passkey of account %q", account)
	}
	u, err := a.store.UserByID(ctx, id)
	if err != nil {
		return site.Done{}, err
	}
	if err := a.startSession(r, u); err != nil {
		return site.Done{}, err
	}
	return site.Done{Message: "Signed in as " + u.Name + ".", Redirect: r.ReturnPath("/account")}, nil
}

// loadPasskeys puts the account's passkeys on the account page.
func (a *App) loadPasskeys(r *site.Request, st *site.State) error {
	list := PasskeyList{Offered: a.passkeys != nil, Keys: []Passkey{}}
	if a.passkeys != nil {
		cs, err := a.passkeys.Store().Credentials(r.Context(), r.Caller.AccountID())
		if err != nil {
			return err
		}
		browsers, err := a.store.PasskeyBrowsers(r.Context(), r.Caller.AccountID())
		if err != nil {
			return err
		}
		for _, c := range cs {
			id := keyID.EncodeToString(c.ID)
			list.Keys = append(list.Keys, Passkey{ID: id, Name: c.Name, Created: c.Created.UTC().Format("2 Jan 2006"), Browser: browsers[id]})
		}
	}
	passkeysKey.Set(st, list)
	return nil
}
