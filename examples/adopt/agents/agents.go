// Package agents adopts the dials application for agents: the glue an
// existing application needs, and nothing of the application changed.
// Browsers, the REST API's clients and the application's own forms get
// exactly the answers they got before; agents get a graph on /dials and
// /dials/{id}, actions that call the application's own services, and an
// MCP endpoint. docs/adopt.md walks through it.
package agents

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"strconv"

	"github.com/affordances-go/affordances/examples/adopt/dials"
	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site"
	"github.com/affordances-go/affordances/site/mcp"
)

// Adopt returns the application's handler with Affordances in front.
func Adopt(app *dials.App) http.Handler {
	s := site.New(site.Options{
		Name:      "Dials",
		AuthModes: []protocol.AuthMode{protocol.AuthBearer, protocol.AuthCookie},
		// The application's API keys and session cookie, as they are.
		Auth: site.AuthFunc(func(r *http.Request) (site.Caller, error) {
			u, bearer, bad := app.Authenticate(r)
			switch {
			case bad && bearer:
				return site.Caller{}, site.ErrBadToken
			case bearer:
				return site.Caller{Mode: protocol.AuthBearer, SignedIn: true, ID: "key:" + digest(r.Header.Get("Authorization")),
					Account: strconv.Itoa(u.ID), Label: "an agent with " + u.Name + "'s API key"}, nil
			case u.ID != 0:
				return site.Caller{Mode: protocol.AuthCookie, SignedIn: true, ID: "session:" + strconv.Itoa(u.ID), Account: strconv.Itoa(u.ID)}, nil
			case len(r.Cookies()) > 0:
				return site.Caller{Mode: protocol.AuthCookie}, nil // a browser: the Origin rule applies
			}
			return site.Caller{}, nil // anonymous
		}),
		// The application's services find their user in the context.
		CallerContext: func(r *http.Request, c site.Caller) context.Context {
			if u, _, _ := app.Authenticate(r); u.ID != 0 {
				return dials.WithUser(r.Context(), u)
			}
			return nil
		},
	})
	app.Head = site.LinkTag // the application's pages announce their graph
	listPage(s, app)
	dialPage(s, app)
	mcp.Mount(s, "/mcp", nil)
	return s.Wrap(app.Handler())
}

// digest names an API key in logs and audit records without writing it.
func digest(secret string) string {
	h := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(h[:6])
}

var (
	dialsKey = site.NewKey[[]dials.Dial]("dials")
	dialKey  = site.NewKey[dials.Dial]("dial")
)

// listPage is /dials: the person's dials, and createDial.
func listPage(s *site.Site, app *dials.App) {
	p := s.Page("/dials", site.PageOptions{Description: "your dials",
		Load: func(r *site.Request) (*site.State, error) {
			st := &site.State{}
			ds, err := app.Store.Dials(r.Context())
			if errors.Is(err, dials.ErrForbidden) {
				ds, err = []dials.Dial{}, nil // signed out: no dials to show
			}
			if err != nil {
				return nil, err
			}
			dialsKey.Set(st, ds)
			for _, d := range ds {
				st.Nav = append(st.Nav, protocol.Nav{To: "/dials/" + strconv.Itoa(d.ID), Label: d.Name})
			}
			return st, nil
		}})
	site.Handle(p, site.Action{Name: "createDial", Expose: protocol.ExposeSession, Description: "add a dial, at 0",
		Effects: site.Effects(dialsKey)},
		func(r *site.Request, in struct {
			Name string `json:"name" minLength:"1" maxLength:"40" description:"the dial's name"`
		}) (site.Result[dials.Dial], error) {
			d, err := app.Store.CreateDial(r.Context(), in.Name)
			if err != nil {
				return site.Result[dials.Dial]{}, serviceError(err)
			}
			return site.Result[dials.Dial]{Output: d, Message: "Created " + d.Name + ".", Redirect: "/dials/" + strconv.Itoa(d.ID)}, nil
		})
}

// dialPage is /dials/{id}: one dial, turned, renamed or deleted.
func dialPage(s *site.Site, app *dials.App) {
	p := s.Page("/dials/{id}", site.PageOptions{Description: "one dial",
		Load: func(r *site.Request) (*site.State, error) {
			id, err := strconv.Atoi(r.PathValue("id"))
			if err != nil {
				return nil, site.ErrNotFound
			}
			d, err := app.Store.Dial(r.Context(), id)
			if errors.Is(err, dials.ErrNotFound) || errors.Is(err, dials.ErrForbidden) {
				return nil, site.ErrNotFound
			}
			if err != nil {
				return nil, err
			}
			st := &site.State{Nav: []protocol.Nav{{To: "/dials", Label: "All dials"}}}
			dialKey.Set(st, d)
			return st, nil
		}})
	id := func(r *site.Request) int { n, _ := strconv.Atoi(r.PathValue("id")); return n }
	site.Handle(p, site.Action{Name: "turnDial", Expose: protocol.ExposeSession, Description: "set the dial's value",
		Effects: site.Effects(dialKey)},
		func(r *site.Request, in struct {
			Value int `json:"value" minimum:"0" maximum:"100" description:"from 0 to 100"`
		}) (site.Result[struct{}], error) {
			d, err := app.Store.UpdateDial(r.Context(), id(r), nil, &in.Value)
			if err != nil {
				return site.Result[struct{}]{}, serviceError(err)
			}
			return site.Result[struct{}]{Message: d.Name + " is at " + strconv.Itoa(d.Value) + "."}, nil
		})
	site.Handle(p, site.Action{Name: "renameDial", Expose: protocol.ExposeSession, Description: "rename the dial",
		Effects: site.Effects(dialKey)},
		func(r *site.Request, in struct {
			Name string `json:"name" minLength:"1" maxLength:"40"`
		}) (site.Result[struct{}], error) {
			d, err := app.Store.UpdateDial(r.Context(), id(r), &in.Name, nil)
			if err != nil {
				return site.Result[struct{}]{}, serviceError(err)
			}
			return site.Result[struct{}]{Message: "Renamed to " + d.Name + "."}, nil
		})
	site.Handle(p, site.Action{Name: "deleteDial", Expose: protocol.ExposeConfirm, Description: "delete the dial for good",
		Effects: site.Effects(dialKey)},
		func(r *site.Request, _ struct{}) (site.Result[struct{}], error) {
			if err := app.Store.DeleteDial(r.Context(), id(r)); err != nil {
				return site.Result[struct{}]{}, serviceError(err)
			}
			return site.Result[struct{}]{Message: "Deleted.", Redirect: "/dials"}, nil
		})
}

// serviceError says a service's refusal in the protocol's terms.
func serviceError(err error) error {
	switch {
	case errors.Is(err, dials.ErrNotFound):
		return site.NotFound("no such dial")
	case errors.Is(err, dials.ErrInvalid):
		return site.Invalid("/name", err.Error())
	case errors.Is(err, dials.ErrForbidden):
		return site.Unavailable("sign in first")
	}
	return err
}
