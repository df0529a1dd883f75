package site_test

import (
	"html/template"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site"
	"github.com/affordances-go/affordances/site/sitetest"
)

// After a form runs an action, the next page shows the action's message
// once, and a form that came back to its own page keeps its choices, but
// never a secret.
func TestFlash_ShowsTheMessageOnceAndKeepsChoices(t *testing.T) {
	s := site.New(site.Options{Name: "Flash", Logger: slog.New(slog.DiscardHandler)})
	view := template.Must(template.New("p").Parse(`[{{.Flash}}] size={{.Form.Get "size"}} pw={{.Form.Get "password"}}`))
	p := s.Page("/", site.PageOptions{View: view})
	site.Handle(p, site.Action{Name: "pick", Description: "Pick", Expose: protocol.ExposePublic},
		func(r *site.Request, in struct {
			Size     string `json:"size"`
			Password string `json:"password,omitempty"`
		}) (site.Done, error) {
			return site.Done{Message: "Picked " + in.Size + " <b>now</b>."}, nil
		})
	site.Handle(p, site.Action{Name: "away", Description: "Away", Expose: protocol.ExposePublic},
		func(r *site.Request, in struct {
			Size string `json:"size"`
		}) (site.Done, error) {
			return site.Done{Message: "Gone.", Redirect: "/"}, nil
		})
	c := sitetest.New(t, s)

	res := c.PostForm("/", url.Values{"_action": {"pick"}, "size": {"M"}, "password": {"hunter2"}})
	if res.Code != 303 {
		t.Fatalf("post: %d %s", res.Code, res.Body)
	}
	set := res.Header().Get("Set-Cookie")
	if !strings.Contains(set, site.FlashCookie+"=") || !strings.Contains(set, "HttpOnly") || strings.Contains(set, "hunter2") {
		t.Fatalf("flash cookie: %q", set)
	}
	page := c.Get("/", sitetest.Header("Accept", "text/html"))
	body := page.Body.String()
	if body != "[Picked M &lt;b&gt;now&lt;/b&gt;.] size=M pw=" {
		t.Errorf("first view: %q", body)
	}
	if cc := page.Header().Get("Cache-Control"); !strings.Contains(cc, "no-store") {
		t.Errorf("a page with a flash may be cached: %q", cc)
	}
	if again := c.Get("/", sitetest.Header("Accept", "text/html")).Body.String(); again != "[] size= pw=" {
		t.Errorf("second view: %q", again)
	}

	// Sent elsewhere: the message, not the form.
	c.PostForm("/", url.Values{"_action": {"away"}, "size": {"L"}})
	if got := c.Get("/", sitetest.Header("Accept", "text/html")).Body.String(); got != "[Gone.] size= pw=" {
		t.Errorf("after a redirect: %q", got)
	}

	// A forged or broken cookie shows nothing.
	c.SetCookie(site.FlashCookie, "%%%")
	if got := c.Get("/", sitetest.Header("Accept", "text/html")); got.Code != http.StatusOK || got.Body.String() != "[] size= pw=" {
		t.Errorf("broken cookie: %d %q", got.Code, got.Body)
	}
}
