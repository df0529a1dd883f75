package site_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site"
	"github.com/affordances-go/affordances/site/sitetest"
)

// The application's own notion of a user, carried in the context, as an
// existing application's services expect it.
type appUser struct{ Name string }

type appUserKey struct{}

func appUserFrom(ctx context.Context) (appUser, bool) {
	u, ok := ctx.Value(appUserKey{}).(appUser)
	return u, ok
}

// appSessions is the application's own: a session cookie or an API key
// names a user.
func appSessions(r *http.Request) (appUser, string, bool) {
	if tok, ok := site.BearerToken(r); ok {
		if tok == "key-ann" {
			return appUser{"ann"}, "bearer", true
		}
		return appUser{}, "bearer", false
	}
	if c, err := r.Cookie("sid"); err == nil && c.Value == "s-ann" {
		return appUser{"ann"}, "cookie", true
	}
	return appUser{}, "", false
}

// whoAmI is a page whose action asks the application's code who calls,
// through the context only.
func whoAmI(s *site.Site) {
	p := s.Page("/me", site.PageOptions{View: productView, Load: func(r *site.Request) (*site.State, error) {
		u, _ := appUserFrom(r.Context())
		return withEntities(&site.State{}, map[string]any{"product": product{Name: "page for " + u.Name}}), nil
	}})
	site.Handle(p, site.Action{Name: "whoAmI", Expose: "session"},
		func(r *site.Request, _ struct{}) (site.Result[struct{}], error) {
			u, ok := appUserFrom(r.Context())
			if !ok {
				return site.Result[struct{}]{}, site.Unavailable("the application sees no user")
			}
			return site.Result[struct{}]{Message: "you are " + u.Name}, nil
		})
}

func callerOf(u appUser, mode string) site.Caller {
	if mode == "bearer" {
		return site.Caller{Mode: protocol.AuthBearer, SignedIn: true, ID: "key:" + u.Name, Account: u.Name}
	}
	return site.Caller{Mode: protocol.AuthCookie, SignedIn: true, ID: "s:" + u.Name, Account: u.Name}
}

// checkTheUserReachesTheApplication calls whoAmI through each door the
// site serves, as a cookie session and as an API key, and expects the
// application's code to find its user in the context.
func checkTheUserReachesTheApplication(t *testing.T, h http.Handler) {
	t.Helper()
	c := sitetest.New(t, h)
	c.SetCookie("sid", "s-ann")
	if w := c.Call("/me", "whoAmI", map[string]any{}); w.Delta().Message != "you are ann" {
		t.Errorf("cookie call: %d %s", w.Code, w.Body)
	}
	if w := c.PostForm("/me", url.Values{site.FormActionField: {"whoAmI"}}); w.Code != http.StatusSeeOther {
		t.Errorf("form: %d %s", w.Code, w.Body)
	}
	if w := c.Get("/me"); !strings.Contains(w.Body.String(), "page for ann") {
		t.Errorf("page: %s", w.Body)
	}
	a := sitetest.New(t, h)
	a.Bearer = "key-ann"
	if w := a.Call("/me", "whoAmI", map[string]any{}); w.Delta().Message != "you are ann" {
		t.Errorf("bearer call: %d %s", w.Code, w.Body)
	}
	// A bad API key is the protocol's 401, with a delta, whatever the
	// application's middleware would have said.
	a.Bearer = "key-nobody"
	if w := a.Call("/me", "whoAmI", map[string]any{}); w.Code != 401 || w.ErrorCode() != "unauthorized" {
		t.Errorf("bad key: %d %s", w.Code, w.Body)
	}
}

// The hook: Auth finds the caller from the application's sessions, and
// CallerContext puts the application's user in the context.
func TestCallerContext_GivesTheApplicationItsUser(t *testing.T) {
	s := site.New(site.Options{
		Auth: site.AuthFunc(func(r *http.Request) (site.Caller, error) {
			u, mode, ok := appSessions(r)
			switch {
			case ok:
				return callerOf(u, mode), nil
			case mode == "bearer":
				return site.Caller{}, site.ErrBadToken
			}
			return site.Caller{Mode: protocol.AuthCookie}, nil
		}),
		CallerContext: func(r *http.Request, c site.Caller) context.Context {
			if !c.SignedIn {
				return nil
			}
			return context.WithValue(r.Context(), appUserKey{}, appUser{c.Account})
		},
	})
	whoAmI(s)
	checkTheUserReachesTheApplication(t, s.Wrap(http.NotFoundHandler()))
}

// The other way: the application's own auth middleware runs in front of
// the site (as it runs in front of its router), and Auth reads the user
// the middleware put in the context. The middleware lets a request with
// a bad key through without a user, so that the site answers it.
func TestCallerContext_OrTheApplicationsMiddlewareInFront(t *testing.T) {
	appAuth := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if u, _, ok := appSessions(r); ok {
				r = r.WithContext(context.WithValue(r.Context(), appUserKey{}, u))
			}
			next.ServeHTTP(w, r)
		})
	}
	s := site.New(site.Options{
		Auth: site.AuthFunc(func(r *http.Request) (site.Caller, error) {
			_, bearer := site.BearerToken(r)
			u, ok := appUserFrom(r.Context())
			switch {
			case ok && bearer:
				return callerOf(u, "bearer"), nil
			case ok:
				return callerOf(u, "cookie"), nil
			case bearer:
				return site.Caller{}, site.ErrBadToken
			}
			return site.Caller{Mode: protocol.AuthCookie}, nil
		}),
	})
	whoAmI(s)
	checkTheUserReachesTheApplication(t, appAuth(s.Wrap(http.NotFoundHandler())))
}
