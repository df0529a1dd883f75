package conformance_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/affordances-go/affordances/conformance"
	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site"
)

// An admin action hidden from everyone but admins (Action.Visible) is not
// probed anonymously by calls.order-auth-before-input, which would get
// the not_found it should get: the check says why it has nothing to
// check instead of failing; with a visible session action it passes.
func TestAuthBeforeInput_PicksWhatAnonymousCallersSee(t *testing.T) {
	for _, hide := range []bool{true, false} {
		s := site.New(site.Options{Name: "Blog", Logger: slog.New(slog.DiscardHandler),
			Auth: site.AuthFunc(func(r *http.Request) (site.Caller, error) {
				if tok, ok := site.BearerToken(r); ok && tok == "admin" {
					return site.Caller{ID: "t1", Mode: protocol.AuthBearer, SignedIn: true, User: "admin"}, nil
				}
				return site.Caller{}, nil
			})})
		p := s.Page("/", site.PageOptions{})
		a := site.Action{Name: "publish", Description: "Publish a post", Expose: protocol.ExposeSession}
		if hide {
			a.Visible = func(r *site.Request) bool { return r.Caller.User == "admin" }
		}
		site.Handle(p, a, func(r *site.Request, in struct {
			Title string `json:"title"`
		}) (site.Done, error) {
			return site.Done{}, nil
		})
		srv := httptest.NewServer(s)
		defer srv.Close()
		var check []conformance.Check
		for _, c := range conformance.Catalogue() {
			if c.ID == "calls.order-auth-before-input" {
				check = append(check, c)
			}
		}
		rep, err := conformance.RunChecks(context.Background(), conformance.Config{BaseURL: srv.URL, Token: "admin"}, check)
		if err != nil {
			t.Fatal(err)
		}
		r := rep.Results[0]
		switch {
		case hide && (r.Status != conformance.Skip || !strings.Contains(r.Detail, "hidden from anonymous callers")):
			t.Errorf("a hidden admin action: %s %s", r.Status, r.Detail)
		case !hide && r.Status != conformance.Pass:
			t.Errorf("a visible session action: %s %s", r.Status, r.Detail)
		}
	}
}
