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

// A loader's cookie goes with the page's HTML, which is then never
// shared-cached; a form whose action set a cookie and failed sends none
// on its failure page: an action's headers go out only when it succeeds.
func TestCookies_ALoadersGoWithThePageAFailedActionsNever(t *testing.T) {
	s := site.New(site.Options{Logger: slog.New(slog.DiscardHandler)})
	view := template.Must(template.New("p").Funcs(site.Funcs()).Parse(`<html><head></head><body>{{with .Error}}<p>{{.Message}}</p>{{end}}{{actionForm . "fail"}}</body></html>`))
	p := s.Page("/p", site.PageOptions{View: view, Load: func(r *site.Request) (*site.State, error) {
		if r.Method == http.MethodGet {
			r.SetCookie(&http.Cookie{Name: "notice", Value: "shown-once", Path: "/p"})
		}
		return &site.State{}, nil
	}})
	site.Handle(p, site.Action{Name: "fail", Expose: protocol.ExposePublic}, func(r *site.Request, in struct{}) (site.Done, error) {
		r.SetCookie(&http.Cookie{Name: "session", Value: "half-made", Path: "/"})
		return site.Done{}, site.Invalid("", "no")
	})
	c := sitetest.New(t, s)
	w := c.Get("/p")
	if !strings.Contains(w.Header().Get("Set-Cookie"), "notice=shown-once") || w.Header().Get("Cache-Control") != "private, no-store" {
		t.Errorf("the page view: %v", w.Header())
	}
	w = c.PostForm("/p", url.Values{"_action": {"fail"}}, sitetest.Header("Sec-Fetch-Mode", "navigate", "Sec-Fetch-User", "?1"))
	if w.Code == http.StatusSeeOther || strings.Contains(strings.Join(w.Header().Values("Set-Cookie"), " "), "half-made") {
		t.Errorf("the failed form's page: %d %v", w.Code, w.Header().Values("Set-Cookie"))
	}
}
