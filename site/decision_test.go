package site_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"

	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site"
	"github.com/affordances-go/affordances/site/approval"
	"github.com/affordances-go/affordances/site/inspector"
	"github.com/affordances-go/affordances/site/sitetest"
)

// codes records the code of every call the site observes.
type codes struct {
	mu  sync.Mutex
	got []site.CallEvent
}

func (o *codes) ObserveCall(_ context.Context, c site.CallEvent) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.got = append(o.got, c)
}
func (o *codes) ObserveGraph(context.Context, site.GraphEvent) {}

func (o *codes) last(t *testing.T) site.CallEvent {
	t.Helper()
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.got) == 0 {
		t.Fatal("no call was observed")
	}
	e := o.got[len(o.got)-1]
	o.got = nil
	return e
}

// Every door (an agent's POST, an HTML form, the MCP endpoint's Execute,
// the inspector) reaches the decision of one pipeline, for every expose
// and every kind of caller: the outcome depends on the action and on who
// calls, never on the door. The only thing a door adds is a fact about
// who is there: a form posted in the person's own cookie session is the
// person acting (call.personPresent), which only the form door can carry.
func TestDecision_TheSameThroughEveryDoor(t *testing.T) {
	obs := &codes{}
	quiet := slog.New(slog.DiscardHandler)
	s := site.New(site.Options{Observer: obs, Logger: quiet, AuditLogger: quiet,
		Auth: site.AuthFunc(func(r *http.Request) (site.Caller, error) {
			if tok, ok := site.BearerToken(r); ok {
				if tok != "agent" {
					return site.Caller{}, site.ErrBadToken
				}
				return site.Caller{ID: "tok", Account: "alice", Mode: protocol.AuthBearer, SignedIn: true}, nil
			}
			if c, err := r.Cookie("session"); err == nil && c.Value == "alice" {
				return site.Caller{ID: "sess", Account: "alice", Mode: protocol.AuthCookie, SignedIn: true}, nil
			}
			return site.Caller{}, nil
		})})
	inspector.Mount(s)
	approval.Mount(s, nil)
	p := s.Page("/p", site.PageOptions{})
	for _, a := range []struct {
		name     string
		expose   protocol.Expose
		approval bool
	}{
		{"pub", protocol.ExposePublic, false},
		{"sess", protocol.ExposeSession, false},
		{"conf", protocol.ExposeConfirm, false},
		{"approve", protocol.ExposeConfirm, true},
	} {
		site.Handle(p, site.Action{Name: a.name, Description: "Do " + a.name, Expose: a.expose, RequireApproval: a.approval},
			func(r *site.Request, in struct{}) (site.Done, error) { return site.Done{Message: "Done."}, nil })
	}

	type door struct {
		name string
		send func(c *sitetest.Client, action string, hdr []string)
	}
	doors := []door{
		{"agent", func(c *sitetest.Client, action string, hdr []string) {
			c.CallBody("/p", `{"action":"`+action+`","confirm":true}`, sitetest.Header(hdr...))
		}},
		{"form", func(c *sitetest.Client, action string, hdr []string) {
			c.PostForm("/p", url.Values{"_action": {action}, "_confirm": {"true"}}, sitetest.Header(hdr...))
		}},
		{"mcp", func(c *sitetest.Client, action string, hdr []string) {
			// As a browser's page would send it, like sitetest's other doors.
			hr := httptest.NewRequest("POST", sitetest.DefaultBase+"/mcp", nil)
			hr.Header.Set("Origin", sitetest.DefaultBase)
			for i := 0; i+1 < len(hdr); i += 2 {
				hr.Header.Set(hdr[i], hdr[i+1])
			}
			s.Execute(hr, site.Call{Page: "/p", Transport: site.Transport("mcp"),
				Call: protocol.Call{Action: action, Input: json.RawMessage(`{}`), Confirm: true}})
		}},
		{"inspector", func(c *sitetest.Client, action string, hdr []string) {
			c.PostForm(inspector.Path, url.Values{"page": {"/p"}, "action": {action}, "input": {`{}`}, "confirm": {"true"}}, sitetest.Header(hdr...))
		}},
	}
	// Each caller also calls from another site's page: the door reads the
	// Origin once, and the pipeline applies the one rule to what it read.
	const away = "https://elsewhere.example"
	callers := []struct {
		kind  site.CallerKind
		hdr   []string
		cross bool
	}{
		{site.CallerAnonymous, nil, false},
		{site.CallerCookie, []string{"Cookie", "session=alice"}, false},
		{site.CallerBearer, []string{"Authorization", "Bearer agent"}, false},
		{site.CallerAnonymous, []string{"Origin", away}, true},
		{site.CallerCookie, []string{"Cookie", "session=alice", "Origin", away}, true},
		{site.CallerBearer, []string{"Authorization", "Bearer agent", "Origin", away}, true},
	}
	// The one rule, written once here from the protocol and decisions.md:
	// what a call of an action with confirm: true gets, by who calls.
	want := func(action string, kind site.CallerKind, personPresent, cross bool) protocol.ErrorCode {
		if cross && kind != site.CallerBearer {
			return protocol.CodeUnauthorized // a browser's call from another site's page
		}
		signedIn := kind != site.CallerAnonymous
		switch action {
		case "pub":
			return site.CodeOK
		case "sess", "conf":
			if !signedIn {
				return protocol.CodeUnauthorized
			}
			return site.CodeOK
		case "approve":
			if !signedIn {
				return protocol.CodeUnauthorized
			}
			if personPresent {
				return site.CodeOK // the person's own act on the confirmation page
			}
			return protocol.CodeConfirmRequired // an agent's: the person approves on the site
		}
		t.Fatalf("no rule for %s", action)
		return ""
	}
	for _, d := range doors {
		for _, who := range callers {
			for _, action := range []string{"pub", "sess", "conf", "approve"} {
				c := sitetest.New(t, s)
				d.send(c, action, who.hdr)
				ev := obs.last(t)
				person := d.name == "form" && who.kind == site.CallerCookie && !who.cross
				if w := want(action, who.kind, person, who.cross); ev.Code != w || ev.Caller != who.kind || ev.Transport != site.Transport(d.name) {
					t.Errorf("%s by %s (from another site: %v) through %s: %s (caller %s, transport %s), want %s",
						action, who.kind, who.cross, d.name, ev.Code, ev.Caller, ev.Transport, w)
				}
			}
		}
	}
}
