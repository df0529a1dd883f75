package site_test

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site"
)

// An application's CrossOriginProtection and the site's Origin rule
// compose, with cop around the application's routes alone or in front of
// everything (with BypassCrossOrigin): cop refuses a cross-site form post
// to the application; the site refuses a cookie call from another origin
// with its own delta, and lets a bearer call from another origin run, as
// the protocol says; same-origin posts run on both.
func TestCrossOriginProtection_ComposesWithTheSitesRule(t *testing.T) {
	build := func(outer, bypass bool) (http.Handler, *int) {
		runs := new(int)
		s := site.New(site.Options{Name: "Notes", Auth: testAuth, Logger: slog.New(slog.DiscardHandler)})
		cop := http.NewCrossOriginProtection()
		if bypass {
			s.BypassCrossOrigin(cop) // before the page: later pages are covered too
		}
		p := s.Page("/notes/{id}", site.PageOptions{})
		site.Handle(p, site.Action{Name: "pin", Description: "Pin the note", Expose: protocol.ExposeSession},
			func(r *site.Request, in struct{}) (site.Done, error) { *runs++; return site.Done{}, nil })
		app := http.NewServeMux()
		app.HandleFunc("POST /app/note", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("saved")) })
		if outer {
			return cop.Handler(s.Wrap(app)), runs
		}
		return s.Wrap(cop.Handler(app)), runs
	}
	send := func(h http.Handler, path, body string, header ...string) *httptest.ResponseRecorder {
		r := httptest.NewRequest("POST", "https://notes.example"+path, strings.NewReader(body))
		for i := 0; i+1 < len(header); i += 2 {
			r.Header.Set(header[i], header[i+1])
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	call := `{"action":"pin"}`
	form := url.Values{"title": {"x"}}.Encode()
	for _, c := range []struct {
		name          string
		outer, bypass bool
	}{{"cop around the application", false, false}, {"cop in front of everything", true, true}} {
		h, runs := build(c.outer, c.bypass)
		if w := send(h, "/app/note", form, "Content-Type", "application/x-www-form-urlencoded", "Cookie", "session=alice",
			"Sec-Fetch-Site", "cross-site", "Origin", "https://evil.example"); w.Code != http.StatusForbidden {
			t.Errorf("%s: a cross-site form post to the application: %d %s", c.name, w.Code, w.Body)
		}
		if w := send(h, "/app/note", form, "Content-Type", "application/x-www-form-urlencoded", "Cookie", "session=alice",
			"Sec-Fetch-Site", "same-origin", "Origin", "https://notes.example"); w.Code != 200 {
			t.Errorf("%s: a same-origin form post to the application: %d %s", c.name, w.Code, w.Body)
		}
		if w := send(h, "/notes/1", call, "Content-Type", protocol.MediaType, "Cookie", "session=alice",
			"Sec-Fetch-Site", "cross-site", "Origin", "https://evil.example"); w.Code != http.StatusForbidden || !strings.Contains(w.Body.String(), `"code":"unauthorized"`) {
			t.Errorf("%s: a cross-site cookie call: %d %s", c.name, w.Code, w.Body)
		}
		if w := send(h, "/notes/1", call, "Content-Type", protocol.MediaType, "Cookie", "session=alice"); w.Code != http.StatusForbidden {
			t.Errorf("%s: a cookie call without Origin (cop lets it through, the site does not): %d %s", c.name, w.Code, w.Body)
		}
		if *runs != 0 {
			t.Fatalf("%s: a refused call ran", c.name)
		}
		if w := send(h, "/notes/1", call, "Content-Type", protocol.MediaType, "Authorization", "Bearer good",
			"Sec-Fetch-Site", "cross-site", "Origin", "https://agent.example"); w.Code != 200 || *runs != 1 {
			t.Errorf("%s: a bearer call from another origin: %d %s", c.name, w.Code, w.Body)
		}
		if w := send(h, "/notes/1", call, "Content-Type", protocol.MediaType, "Cookie", "session=alice",
			"Sec-Fetch-Site", "same-origin", "Origin", "https://notes.example"); w.Code != 200 || *runs != 2 {
			t.Errorf("%s: a same-origin cookie call: %d %s", c.name, w.Code, w.Body)
		}
	}
	// In front of everything without the bypass, cop refuses the bearer
	// call the protocol exempts: why BypassCrossOrigin exists.
	h, _ := build(true, false)
	if w := send(h, "/notes/1", call, "Content-Type", protocol.MediaType, "Authorization", "Bearer good",
		"Sec-Fetch-Site", "cross-site", "Origin", "https://agent.example"); w.Code != http.StatusForbidden {
		t.Errorf("without the bypass: %d %s", w.Code, w.Body)
	}
}
