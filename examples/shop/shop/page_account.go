package shop

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site"
	"github.com/affordances-go/affordances/site/ratelimit"
	"github.com/affordances-go/affordances/site/safetext"
)

// SignIn is the input of signIn.
type SignIn struct {
	Email    string `json:"email" description:"Email" format:"email" maxLength:"254"`
	Password string `json:"password" description:"Password" minLength:"1" maxLength:"200"`
}

func (a *App) loginPage() {
	p := a.site.Page("/login", site.PageOptions{
		Description: "Sign in with an email and a password",
		View:        page("login.html"),
		Entities: append(a.header(), site.Group(func(r *site.Request, st *site.State) error {
			demoKey.Set(st, map[string]string{"email": DemoEmail, "password": DemoPassword})
			st.MD = "# Sign in\n\nThe demo account is " + DemoEmail + " with the password " + DemoPassword + ".\n"
			return nil
		}, demoKey)),
	})
	limit := ratelimit.Limit{Rate: 10, Per: time.Minute, Burst: 5}
	site.Handle(p, site.Action{
		Name: "signIn", Description: "Sign in; a guest cart is merged into the account's cart",
		Expose: protocol.ExposePublic, Limit: &limit, NeedsCookies: true, LimitByAddress: true,
	}, a.signIn)
	if a.passkeys != nil {
		site.Handle(p, site.Action{
			Name: "signInWithPasskey", Description: "Sign in with a passkey this browser holds",
			Expose: protocol.ExposePublic, Limit: &limit, NeedsCookies: true, LimitByAddress: true,
		}, a.signInWithPasskey)
	}
}

// signIn checks the password, within the limits of failed sign-ins (see
// signin_limit.go), and starts a session.
func (a *App) signIn(r *site.Request, in SignIn) (site.Done, error) {
	ctx := r.Context()
	email := NormalizeEmail(in.Email)
	account, addr := hashSecret(email), a.site.ClientAddr(r.Request)
	if wait, ok := a.failures.allow(account, addr, a.knownDevice(r, email)); !ok {
		return site.Done{}, site.RateLimited(wait, "Too many failed sign-ins for this account. Try again in %s.", roughly(wait))
	}
	u, err := a.store.Authenticate(ctx, email, in.Password)
	if errors.Is(err, ErrBadCredentials) {
		a.failures.add(account, addr)
		return site.Done{}, site.Unavailable("The email or password is wrong.")
	}
	if err != nil {
		return site.Done{}, err
	}
	a.failures.reset(account, addr)
	last, err := a.store.LastSignIn(ctx, u.ID)
	if err != nil {
		return site.Done{}, err
	}
	if err := a.startSession(r, u); err != nil {
		return site.Done{}, err
	}
	if dev, err := r.Cookie(deviceCookie); err != nil || !a.deviceOf(r, dev.Value, u.ID) {
		plain, err := a.store.CreateDevice(ctx, u.ID)
		if err != nil {
			return site.Done{}, err
		}
		r.SetCookie(&http.Cookie{Name: deviceCookie, Value: plain, Path: "/login", HttpOnly: true,
			SameSite: http.SameSiteLaxMode, MaxAge: int((365 * 24 * time.Hour).Seconds())})
	}
	// Back to the page that sent the person here (?next=, a path of this
	// site only), else to the account.
	msg := "Signed in as " + u.Name + "."
	// A passkey added since the last sign-in is told, so that one the
	// person did not add does not go unseen.
	added, err := a.store.PasskeysAddedSince(ctx, "user:"+itoa(u.ID), last)
	if err != nil {
		return site.Done{}, err
	}
	if len(added) > 0 {
		msg += " Since you last signed in, a passkey was added: " + strings.Join(added, "; ") + ". If that was not you, remove it on your account page."
	}
	return site.Done{Message: msg, Redirect: r.ReturnPath("/account")}, nil
}

// knownDevice reports whether the request comes from a browser that
// signed in to the account of email before.
func (a *App) knownDevice(r *site.Request, email string) bool {
	dev, err := r.Cookie(deviceCookie)
	if err != nil || dev.Value == "" {
		return false
	}
	id, err := a.store.UserByEmail(r.Context(), email)
	return err == nil && a.deviceOf(r, dev.Value, id)
}

// deviceOf reports whether a device cookie was given to the user.
func (a *App) deviceOf(r *site.Request, plain string, userID int64) bool {
	id, err := a.store.DeviceUser(r.Context(), plain)
	return err == nil && id == userID
}

// roughly writes a wait for a person: "30 seconds", "12 minutes".
func roughly(d time.Duration) string {
	if d < time.Minute {
		return fmt.Sprintf("%d seconds", int(d.Seconds())+1)
	}
	return fmt.Sprintf("%d minutes", int(d.Minutes())+1)
}

// startSession signs the request's caller in as u: the session it had
// before (if any) is ended, a guest cart is merged into the account's, and
// the session cookie is set.
//
// The session cookie is HttpOnly (no script reads it), SameSite=Lax (other
// sites' forms and fetches do not carry it; links do), Secure over HTTPS
// (r.SetCookie makes it so, behind a TLS proxy too), and Path=/; it lasts
// SessionTTL.
func (a *App) startSession(r *site.Request, u *User) error {
	ctx := r.Context()
	sh := shopperOf(r)
	if sh.Session != "" {
		if err := a.store.DeleteSession(ctx, sh.Session); err != nil {
			return err
		}
	}
	sess, err := a.store.CreateSession(ctx, u.ID)
	if err != nil {
		return err
	}
	if err := a.store.MergeGuestCart(ctx, sh.GuestHash, u.ID); err != nil {
		return err
	}
	r.SetCookie(&http.Cookie{Name: sessionCookie, Value: sess, Path: "/", HttpOnly: true,
		SameSite: http.SameSiteLaxMode, MaxAge: int(SessionTTL.Seconds())})
	if sh.GuestHash != "" {
		r.SetCookie(&http.Cookie{Name: guestCookie, Value: "", Path: "/", MaxAge: -1})
	}
	r.Caller = site.Caller{ID: "sess:" + hashSecret(sess)[:16], Account: "user:" + itoa(u.ID), Mode: protocol.AuthCookie, SignedIn: true,
		User: &shopper{User: u, Session: sess}}
	return nil
}

func (a *App) accountPage() {
	p := a.site.Page("/account", site.PageOptions{
		Description: "The signed-in shopper's account and API tokens",
		View:        page("account.html"),
		Personal:    true,
		Entities: append(a.header(), site.Group(a.loadAccount, profileKey, passkeysKey), a.store.kit.Entities(),
			site.Group(a.loadRequests, requestsKey)),
	})
	a.passkeyActions(p)
	// Signing out ends a browser session. A token is not a session: it
	// stays valid until it is revoked, so signOut is unavailable to a
	// caller that came with one, and says what to do instead.
	site.Handle(p, site.Action{Name: "signOut", Description: "Sign out of this browser session", Expose: protocol.ExposeSession,
		Guard: site.Guard{Text: "signed in with a browser session", Check: func(r *site.Request, st *site.State) (bool, string) {
			return shopperOf(r).Session != "", "an API token is not a session: revoke it with revokeToken to stop it working"
		}}},
		func(r *site.Request, in struct{}) (site.Done, error) {
			sh := shopperOf(r)
			if err := a.store.DeleteSession(r.Context(), sh.Session); err != nil {
				return site.Done{}, err
			}
			r.SetCookie(&http.Cookie{Name: sessionCookie, Value: "", Path: "/", MaxAge: -1})
			r.Caller = site.Caller{Mode: protocol.AuthCookie, User: &shopper{}}
			return site.Done{Message: "Signed out.", Redirect: r.ReturnPath("/")}, nil
		})
	// Credentials and standing approvals are the person's to manage, in
	// their own browser: no agent, with a token (which a new token would
	// outlive) or riding the person's session (a WebMCP tool, a JSON
	// call), may make, widen or revoke them. The token kit's createToken
	// and revokeToken are people-only: in no graph, index or tool, and
	// every agent door refuses them.
	a.store.kit.Actions(p)
}

func (a *App) loadAccount(r *site.Request, st *site.State) error {
	sh := shopperOf(r)
	if sh.User == nil {
		st.MD = "# Account\n\nSign in first.\n"
		st.Nav = []protocol.Nav{{To: "/login", Label: "Sign in"}}
		return nil
	}
	profileKey.Set(st, sh.User)
	if err := a.loadPasskeys(r, st); err != nil {
		return err
	}
	st.Nav = []protocol.Nav{{To: "/orders", Label: "Orders"}}
	st.MD = fmt.Sprintf("# Account\n\nSigned in as %s.\n", safetext.EscapeMarkdown(sh.User.Name))
	return nil
}
