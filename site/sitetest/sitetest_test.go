package sitetest_test

import (
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site"
	"github.com/affordances-go/affordances/site/sitetest"
)

// newCounter is a site with a count, an action that adds to it, and a
// sign-in that sets a cookie.
func newCounter() *site.Site {
	n := 0
	s := site.New(site.Options{Name: "Counter", Logger: slog.New(slog.DiscardHandler),
		Auth: site.AuthFunc(func(r *http.Request) (site.Caller, error) {
			if c, err := r.Cookie("sid"); err == nil {
				return site.Caller{ID: c.Value, Mode: protocol.AuthCookie, SignedIn: true}, nil
			}
			return site.Caller{}, nil
		})})
	p := s.Page("/", site.PageOptions{Load: func(r *site.Request) (*site.State, error) {
		return withEntities(&site.State{}, map[string]any{"count": n, "signedIn": r.Caller.SignedIn}), nil
	}})
	site.Handle(p, site.Action{Name: "add", Description: "Add to the count", Expose: protocol.ExposePublic,
		Effects: site.Effects(site.NewKey[any]("count"))},
		func(r *site.Request, in struct {
			By int `json:"by" minimum:"1" maximum:"10"`
		}) (site.Done, error) {
			n += in.By
			return site.Done{Message: fmt.Sprintf("Now %d.", n)}, nil
		})
	site.Handle(p, site.Action{Name: "signIn", Description: "Sign in", Expose: protocol.ExposePublic},
		func(r *site.Request, in struct{}) (site.Done, error) {
			r.SetCookie(&http.Cookie{Name: "sid", Value: "s1", Path: "/"})
			return site.Done{}, nil
		})
	site.Handle(p, site.Action{Name: "reset", Description: "Reset the count", Expose: protocol.ExposeConfirm},
		func(r *site.Request, in struct{}) (site.Done, error) {
			n = 0
			return site.Done{}, nil
		})
	return s
}

func TestClient_GraphCallAndDelta(t *testing.T) {
	c := sitetest.New(t, newCounter())
	if g := c.Graph("/"); g.Route != "/" || g.Entities["count"] != 0.0 || len(g.Actions) != 3 {
		t.Fatalf("graph %+v", g)
	}
	res := c.Call("/", "add", map[string]int{"by": 2})
	if res.Code != 200 || res.ErrorCode() != "ok" || res.Delta().Message != "Now 2." {
		t.Fatalf("add: %d %s", res.Code, res.Body)
	}
	res = c.Call("/", "add", map[string]int{"by": 99})
	if res.Code != 400 || res.ErrorCode() != "invalid_input" || res.Delta().Error.Issues[0].Path != "/by" {
		t.Fatalf("add 99: %d %s", res.Code, res.Body)
	}
	if idx := c.Index(); idx.Name != "Counter" || len(idx.Routes) != 1 {
		t.Errorf("index %+v", idx)
	}
}

// Cookies the site sets are sent back, with the site's Origin on posts;
// an option removes the Origin to test the rule.
func TestClient_KeepsCookiesAndSendsTheOrigin(t *testing.T) {
	c := sitetest.New(t, newCounter())
	if res := c.Call("/", "signIn", nil); res.ErrorCode() != "ok" {
		t.Fatal(res.Body)
	}
	if g := c.Graph("/"); g.Entities["signedIn"] != true {
		t.Fatalf("the session cookie was not kept: %v", g.Entities)
	}
	if res := c.Call("/", "reset", nil); res.ErrorCode() != "confirm_required" {
		t.Errorf("reset without confirm: %s", res.Body)
	}
	if res := c.Call("/", "reset", nil, sitetest.Confirm()); res.ErrorCode() != "ok" {
		t.Errorf("reset with confirm: %s", res.Body)
	}
	res := c.CallBody("/", `{"action":"add","input":{"by":1}}`, sitetest.Header("Origin", ""))
	if res.Code != 403 || res.ErrorCode() != "unauthorized" {
		t.Errorf("a cookie call without Origin: %d %s", res.Code, res.Body)
	}
	c.Base = "http://other.example"
	if g := c.Graph("/"); g.Entities["signedIn"] != false {
		t.Errorf("cookies of one host went to another")
	}
}

// Transport serves an *http.Client in process, for code that takes one.
func TestTransport_ServesAnHTTPClientInProcess(t *testing.T) {
	hc := &http.Client{Transport: sitetest.Transport(newCounter())}
	req, _ := http.NewRequest("POST", "http://example.com/", strings.NewReader(`{"action":"add","input":{"by":3}}`))
	req.Header.Set("Content-Type", protocol.MediaType)
	res, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	if res.StatusCode != 200 || !strings.Contains(string(body), "Now 3.") {
		t.Errorf("%d %s", res.StatusCode, body)
	}
}

// CheckDeltas catches a handler that reports a change a reload does not
// show.
func TestClient_CheckDeltasCatchesADeltaThatLies(t *testing.T) {
	n := 0
	s := site.New(site.Options{Logger: slog.New(slog.DiscardHandler)})
	p := s.Page("/", site.PageOptions{Load: func(r *site.Request) (*site.State, error) {
		// The page shows 0 to the caller the action pretends to be.
		if r.Caller.ID == "pretend" {
			return withEntities(&site.State{}, map[string]any{"count": 0}), nil
		}
		return withEntities(&site.State{}, map[string]any{"count": n}), nil
	}})
	site.Handle(p, site.Action{Name: "honest", Expose: protocol.ExposePublic, Effects: site.Effects(site.NewKey[any]("count"))},
		func(r *site.Request, in struct{}) (site.Done, error) { n++; return site.Done{}, nil })
	site.Handle(p, site.Action{Name: "liar", Expose: protocol.ExposePublic, Effects: site.Effects(site.NewKey[any]("count"))},
		func(r *site.Request, in struct{}) (site.Done, error) {
			r.Caller = site.Caller{ID: "pretend"} // as if the caller were signed out
			return site.Done{}, nil
		})

	rec := &recorder{TB: t}
	c := sitetest.New(rec, s)
	c.CheckDeltas = true
	c.Call("/", "honest", nil)
	if len(rec.errors) != 0 {
		t.Fatalf("an honest delta was reported: %v", rec.errors)
	}
	c.Call("/", "liar", nil)
	if len(rec.errors) != 1 || !strings.Contains(rec.errors[0], "reported count = 0, but the page now shows 1") {
		t.Fatalf("a lying delta was not reported: %v", rec.errors)
	}
}

// recorder is a testing.TB that keeps the errors reported to it.
type recorder struct {
	testing.TB
	errors []string
}

func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}
func (r *recorder) Helper() {}

// withEntities stores each entity of m in st under its name, as a page's
// keys would.
func withEntities(st *site.State, m map[string]any) *site.State {
	for name, v := range m {
		site.NewKey[any](name).Set(st, v)
	}
	return st
}
