package inspector_test

import (
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site"
	"github.com/affordances-go/affordances/site/inspector"
	"github.com/affordances-go/affordances/site/sitetest"
)

func inspectedSite(on bool) *site.Site {
	s := site.New(site.Options{Name: "Inspected", Logger: slog.New(slog.DiscardHandler),
		Auth: site.AuthFunc(func(r *http.Request) (site.Caller, error) {
			if c, err := r.Cookie("sid"); err == nil {
				return site.Caller{ID: c.Value, Mode: protocol.AuthCookie, SignedIn: true}, nil
			}
			return site.Caller{}, nil
		})})
	n := 0
	p := s.Page("/counter", site.PageOptions{Load: func(r *site.Request) (*site.State, error) {
		return withEntities(&site.State{}, map[string]any{"count": n}), nil
	}})
	site.Handle(p, site.Action{Name: "add", Description: "Add to the count", Expose: protocol.ExposePublic, Effects: site.Effects(site.NewKey[any]("count"))},
		func(r *site.Request, in struct {
			By int `json:"by" minimum:"1" example:"2"`
		}) (site.Done, error) {
			n += in.By
			return site.Done{Message: "added"}, nil
		})
	site.Handle(p, site.Action{Name: "reset", Description: "Reset", Expose: protocol.ExposeConfirm},
		func(r *site.Request, in struct{}) (site.Done, error) { n = 0; return site.Done{}, nil })
	site.Handle(p, site.Action{Name: "mine", Description: "Signed in only", Expose: protocol.ExposeSession},
		func(r *site.Request, in struct{}) (site.Done, error) { return site.Done{}, nil })
	if on {
		inspector.Mount(s)
	}
	return s
}

func TestInspector_IsOffByDefault(t *testing.T) {
	c := sitetest.New(t, inspectedSite(false))
	if res := c.Get(inspector.Path+"?page=/counter", sitetest.Header("Accept", "text/html")); res.Code != 404 {
		t.Errorf("inspector without the option: %d", res.Code)
	}
}

func TestInspector_ShowsThePageAndRunsActionsThroughThePipeline(t *testing.T) {
	c := sitetest.New(t, inspectedSite(true))
	res := c.Get(inspector.Path+"?page=/counter", sitetest.Header("Accept", "text/html"))
	body := res.Body.String()
	for _, want := range []string{`<iframe src="/counter"`, "about ", " tokens", "&#34;count&#34;: 0", "add <small>(public)</small>",
		`&#34;by&#34;: 2`, "Seen as: anonymous", "confirm: true"} {
		if !strings.Contains(body, want) {
			t.Errorf("the inspector lacks %q", want)
		}
	}
	if !strings.Contains(body, `mine <small>(session)</small> — <span class="no">unavailable: `) {
		t.Error("the inspector does not show why a session action is unavailable to this person")
	}
	if cc := res.Header().Get("Cache-Control"); cc != "no-store" {
		t.Errorf("Cache-Control %q", cc)
	}

	// A run goes through the pipeline: validation, confirmation, the delta.
	post := func(form url.Values, opts ...sitetest.Option) string {
		return c.Do("POST", inspector.Path, strings.NewReader(form.Encode()),
			append(opts, sitetest.Header("Content-Type", "application/x-www-form-urlencoded"))...).Body.String()
	}
	if got := post(url.Values{"page": {"/counter"}, "action": {"add"}, "input": {`{"by":3}`}}); !strings.Contains(got, "&#34;ok&#34;: true") || !strings.Contains(got, "&#34;count&#34;: 3") {
		t.Errorf("add:\n%s", got)
	}
	if got := post(url.Values{"page": {"/counter"}, "action": {"add"}, "input": {`{"by":0}`}}); !strings.Contains(got, "must be at least 1") {
		t.Errorf("invalid input:\n%s", got)
	}
	if got := post(url.Values{"page": {"/counter"}, "action": {"reset"}}); !strings.Contains(got, "sign in first") {
		t.Errorf("reset as anonymous:\n%.3000s", got)
	}
	c.SetCookie("sid", "s1")
	if got := post(url.Values{"page": {"/counter"}, "action": {"reset"}}); !strings.Contains(got, "confirm_required") || !strings.Contains(got, "Seen as: you, signed in") {
		t.Errorf("reset without confirm:\n%.3000s", got)
	}
	if got := post(url.Values{"page": {"/counter"}, "action": {"reset"}, "confirm": {"true"}}); !strings.Contains(got, "&#34;count&#34;: 0") {
		t.Errorf("reset confirmed:\n%.3000s", got)
	}
	// The Origin rule holds: a signed-in person's form from elsewhere is refused.
	if got := post(url.Values{"page": {"/counter"}, "action": {"add"}, "input": {`{"by":1}`}}, sitetest.Header("Origin", "http://evil.example")); !strings.Contains(got, "unauthorized") {
		t.Errorf("cross-origin run:\n%s", got)
	}
}

// withEntities stores each entity of m in st under its name, as a page's
// keys would.
func withEntities(st *site.State, m map[string]any) *site.State {
	for name, v := range m {
		site.NewKey[any](name).Set(st, v)
	}
	return st
}
