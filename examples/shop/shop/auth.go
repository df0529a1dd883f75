package shop

import (
	"errors"
	"net/http"

	"github.com/affordances-go/affordances/site/tokens"

	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site"
)

// Cookie names. Both are HttpOnly and SameSite=Lax; the Origin rule of
// the site protects the calls that ride on them.
const (
	sessionCookie = "sid"
	guestCookie   = "cart"
	// deviceCookie marks a browser that signed in before: it is not a
	// credential (it signs nobody in), only what spares the owner the
	// slowing of sign-ins while strangers guess their password.
	deviceCookie = "device"
)

// shopper is what the authenticator attaches to a request.
type shopper struct {
	User      *User  // nil for a guest
	Session   string // the session cookie's value, when signed in by cookie
	GuestHash string // the hash of the guest cart cookie, when there is one
	Token     *Token // the bearer token, with its grant, when called with one
}

func (sh *shopper) owner() CartOwner {
	if sh.User != nil {
		return CartOwner{UserID: sh.User.ID}
	}
	return CartOwner{GuestHash: sh.GuestHash}
}

// shopperOf returns the request's shopper (never nil).
func shopperOf(r *site.Request) *shopper {
	if s, ok := r.Caller.User.(*shopper); ok {
		return s
	}
	return &shopper{}
}

// authenticate reports who made a request: a bearer token, a session
// cookie, a guest cart cookie, or nobody. Caller IDs are the first bytes of
// stored hashes: opaque, stable and not personal data.
func (a *App) authenticate(r *http.Request) (site.Caller, error) {
	ctx := r.Context()
	if c, ok, err := a.store.kit.Caller(r); ok {
		if err != nil {
			return site.Caller{}, err
		}
		t, _ := tokens.FromCaller(c)
		u, err := a.store.UserByID(ctx, userOfAccount(t.Account))
		if errors.Is(err, ErrNotFound) {
			return site.Caller{}, site.ErrBadToken // the account is gone
		}
		if err != nil {
			return site.Caller{}, err
		}
		tok := tokenOf(*t)
		c.User = &shopper{User: u, Token: &tok}
		return c, nil
	}
	sh := &shopper{}
	cookie := false
	if c, err := r.Cookie(guestCookie); err == nil && c.Value != "" {
		// Only a cookie the store issued is a guest: an invented one is an
		// anonymous caller, rate limited by its address, and gets a cart
		// (and a real cookie) of its own when it adds something.
		cookie = true
		hash := hashSecret(c.Value)
		ok, err := a.store.GuestCartExists(ctx, hash)
		if err != nil {
			return site.Caller{}, err
		}
		if ok {
			sh.GuestHash = hash
		}
	}
	if c, err := r.Cookie(sessionCookie); err == nil && c.Value != "" {
		cookie = true
		u, err := a.store.Session(ctx, c.Value)
		switch {
		case err == nil:
			sh.User, sh.Session = u, c.Value
			return site.Caller{ID: "sess:" + hashSecret(c.Value)[:16], Account: "user:" + itoa(u.ID), Mode: protocol.AuthCookie, SignedIn: true, User: sh}, nil
		case !errors.Is(err, ErrNotFound):
			return site.Caller{}, err
		}
	}
	if cookie {
		id := ""
		if sh.GuestHash != "" {
			id = "guest:" + sh.GuestHash[:16]
		}
		return site.Caller{ID: id, Mode: protocol.AuthCookie, User: sh}, nil
	}
	return site.Caller{User: sh}, nil
}
