package site_test

import (
	"encoding/json"
	"html/template"
	"log/slog"
	"strings"
	"testing"

	"github.com/affordances-go/affordances/site"
	"github.com/affordances-go/affordances/site/sitetest"
)

// noPresence is a Presence that nobody needs to prove: enough for a
// page to know the site has one.
type noPresence struct{}

func (noPresence) Required(*site.Request) (bool, error) { return false, nil }
func (noPresence) Challenge(*site.Request, site.PresenceBinding) (json.RawMessage, error) {
	return nil, nil
}
func (noPresence) Verify(*site.Request, site.PresenceBinding, string) error { return nil }

// {{.PresenceScript}} loads the script of presence on a site that proves
// presence, and writes nothing on one that does not (whose pages would
// ask for a script nobody serves).
func TestView_PresenceScriptOnlyWhereTheSiteProvesPresence(t *testing.T) {
	view := template.Must(template.New("p").Parse(`<head>{{.PresenceScript}}</head>`))
	for _, c := range []struct {
		presence site.Presence
		want     bool
	}{{nil, false}, {noPresence{}, true}} {
		s := site.New(site.Options{Logger: slog.New(slog.DiscardHandler), Presence: c.presence})
		s.Page("/p", site.PageOptions{View: view})
		w := sitetest.New(t, s).Get("/p", sitetest.Header("Accept", "text/html"))
		if got := strings.Contains(w.Body.String(), `<script src="`+site.PresenceScriptPath+`" defer></script>`); got != c.want || w.Code != 200 {
			t.Errorf("Presence %T: %d %s", c.presence, w.Code, w.Body)
		}
	}
}
