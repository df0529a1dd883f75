package site_test

import (
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site"
	"github.com/affordances-go/affordances/site/approval"
	"github.com/affordances-go/affordances/site/sitetest"
)

type orderIn struct {
	Total int `json:"total" minimum:"1"`
}

func (in orderIn) Summary(*site.Request, *site.State) string {
	return "Order for " + strings.Repeat("€", in.Total)
}

// grantsSite has a token scoped to two actions with a standing approval
// of orders up to 50 each and 80 a day, and a token without limits.
func grantsSite(t *testing.T) (*sitetest.Client, *sitetest.Client, *int) {
	t.Helper()
	var mu sync.Mutex
	spent := 0
	s := site.New(site.Options{
		Auth: site.AuthFunc(func(r *http.Request) (site.Caller, error) {
			switch tok, _ := site.BearerToken(r); tok {
			case "scoped":
				return site.Caller{Mode: protocol.AuthBearer, SignedIn: true, ID: "t1", Account: "ann", Scopes: []string{"addToCart", "placeOrder"}}, nil
			case "all":
				return site.Caller{Mode: protocol.AuthBearer, SignedIn: true, ID: "t2", Account: "ann"}, nil
			case "":
				return site.Caller{}, nil
			}
			return site.Caller{}, site.ErrBadToken
		}),
		Grants: site.GrantOptions{Page: "/account", StandingActions: []string{"placeOrder"}},
	}, standing(func(r *site.Request, action string, in any) bool {
		o, ok := in.(orderIn)
		return ok && r.Caller.ID == "t1" && action == "placeOrder" && o.Total <= 50
	}))
	approval.Mount(s, nil)
	p := s.Page("/shop", site.PageOptions{Description: "a shop", Load: func(*site.Request) (*site.State, error) {
		mu.Lock()
		defer mu.Unlock()
		return withEntities(&site.State{}, map[string]any{"spent": spent}), nil
	}})
	done := func(r *site.Request, _ struct{}) (site.Done, error) { return site.Done{Message: "done"}, nil }
	site.Handle(p, site.Action{Name: "addToCart", Expose: protocol.ExposeSession}, done)
	site.Handle(p, site.Action{Name: "emptyCart", Expose: protocol.ExposeSession}, done)
	site.Handle(p, site.Action{Name: "placeOrder", Expose: protocol.ExposeConfirm, RequireApproval: true},
		func(r *site.Request, in orderIn) (site.Done, error) {
			mu.Lock()
			defer mu.Unlock()
			// Where it writes, the action holds the grant's daily limit.
			if r.Standing() && spent+in.Total > 80 {
				return site.Done{}, site.ErrOutsideGrant
			}
			spent += in.Total
			return site.Done{Message: "ordered"}, nil
		})
	scoped, all := sitetest.New(t, s), sitetest.New(t, s)
	scoped.Bearer, all.Bearer = "scoped", "all"
	return scoped, all, &spent
}

// standing is a gate of StageStanding that covers what f says.
type standing func(r *site.Request, action string, in any) bool

func (f standing) Extend(x *site.Extender) {
	x.Gate(site.StageStanding, func(r *site.Request, c *site.Consent) error {
		if f(r, c.Action, c.Input) {
			c.Grant(c.Basis)
		}
		return nil
	})
}

func TestScopes_OnlyTheGrantedActions(t *testing.T) {
	scoped, all, _ := grantsSite(t)
	w := scoped.Call("/shop", "emptyCart", map[string]any{})
	if w.Code != 403 || w.ErrorCode() != "unauthorized" || !strings.Contains(w.Delta().Error.Message, "scope emptyCart") {
		t.Errorf("out of scope: %d %s", w.Code, w.Body)
	}
	if w := scoped.Call("/shop", "addToCart", map[string]any{}); w.Code != 200 {
		t.Errorf("in scope: %d %s", w.Code, w.Body)
	}
	g := scoped.Graph("/shop")
	if a := g.Action("emptyCart"); a == nil || a.Available || !strings.Contains(a.Reason, "scope emptyCart") {
		t.Errorf("the graph of a scoped token: %+v", a)
	}
	ga := all.Graph("/shop")
	if a := ga.Action("emptyCart"); a == nil || !a.Available {
		t.Errorf("the graph of an unscoped token: %+v", a)
	}
	// A form posted with the scoped token is held to the same scopes.
	f := scoped.PostForm("/shop", map[string][]string{site.FormActionField: {"emptyCart"}})
	if f.Code == http.StatusSeeOther {
		t.Errorf("a form with the scoped token ran emptyCart")
	}
}

func TestStanding_WithinTheGrantRunsBeyondItAsks(t *testing.T) {
	scoped, all, spent := grantsSite(t)
	// Within the grant: runs at once, no approval page, no confirm.
	for range 2 {
		if w := scoped.Call("/shop", "placeOrder", map[string]any{"total": 30}); w.Code != 200 {
			t.Fatalf("within the grant: %d %s", w.Code, w.Body)
		}
	}
	// Over the per-order amount: the person is asked.
	w := scoped.Call("/shop", "placeOrder", map[string]any{"total": 51})
	if w.ErrorCode() != "confirm_required" || w.Delta().ApprovalURL == "" {
		t.Errorf("over the order limit: %s", w.Body)
	}
	// Within the order amount, over the day's: the action finds it where
	// it writes, nothing is written, the person is asked.
	w = scoped.Call("/shop", "placeOrder", map[string]any{"total": 30})
	if w.ErrorCode() != "confirm_required" || w.Delta().ApprovalURL == "" || !strings.Contains(w.Delta().Error.Message, "beyond what the person allowed") {
		t.Errorf("over the day's limit: %s", w.Body)
	}
	if *spent != 60 {
		t.Errorf("spent %d, want 60", *spent)
	}
	// A credential without a standing approval asks every time.
	if w := all.Call("/shop", "placeOrder", map[string]any{"total": 5}); w.ErrorCode() != "confirm_required" {
		t.Errorf("without a grant: %s", w.Body)
	}
}

func TestIndex_SaysWhatCanBeGranted(t *testing.T) {
	scoped, _, _ := grantsSite(t)
	idx := scoped.Index()
	g := idx.Grants
	if g == nil || g.Page != "/account" || strings.Join(g.Scopes, " ") != "addToCart emptyCart placeOrder" || strings.Join(g.Standing, " ") != "placeOrder" {
		t.Errorf("grants %+v", g)
	}
	if !strings.Contains(strings.Join(idx.Extensions, " "), protocol.ExtensionGrants) {
		t.Errorf("extensions %v", idx.Extensions)
	}
}
