package webmcp_test

import (
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site"
	"github.com/affordances-go/affordances/site/webmcp"
)

// notes is a site with one page: addNote, which an agent may call, and
// deleteAll, which only the person may run; done turns addNote's guard.
func notes(done bool, exts ...site.Extension) *site.Site {
	s := site.New(site.Options{Name: "Notes", Auth: site.AuthFunc(func(r *http.Request) (site.Caller, error) {
		if _, err := r.Cookie("s"); err == nil {
			return site.Caller{ID: "p", Mode: protocol.AuthCookie, SignedIn: true}, nil
		}
		return site.Caller{}, nil
	})}, exts...)
	view := template.Must(template.New("notes").Parse(`<!doctype html><html><head><title>Notes</title></head><body><h1>Notes</h1></body></html>`))
	p := s.Page("/notes", site.PageOptions{Description: "The notes", View: view,
		Load: func(r *site.Request) (*site.State, error) { return &site.State{}, nil }})
	type note struct {
		Text string `json:"text" maxLength:"200"`
	}
	site.Handle(p, site.Action{Name: "addNote", Description: "Add a note", Expose: protocol.ExposePublic,
		Guard: site.Guard{Text: "the notebook is open", Check: func(*site.Request, *site.State) (bool, string) { return !done, "the notebook is closed" }}},
		func(r *site.Request, in note) (site.Done, error) { return site.Done{Message: "Noted."}, nil })
	site.Handle(p, site.Action{Name: "deleteAll", Description: "Delete every note", Expose: protocol.ExposeSession, PeopleOnly: true},
		func(r *site.Request, in site.NoOutput) (site.Done, error) { return site.Done{}, nil })
	return s
}

// get answers a GET of path on s by the signed-in person, with the
// Affordances media type when agent is set.
func get(s *site.Site, path string, agent bool) (int, string) {
	r := httptest.NewRequest("GET", path, nil)
	r.AddCookie(&http.Cookie{Name: "s", Value: "1"})
	if agent {
		r.Header.Set("Accept", protocol.MediaType)
	}
	w := httptest.NewRecorder()
	s.ServeHTTP(w, r)
	b, _ := io.ReadAll(w.Result().Body)
	return w.Code, string(b)
}

// With the door plugged in, every page the site renders carries, before
// its </head>, the tools of the actions an agent may call there and the
// script that registers them.
func Example() {
	s := notes(false, webmcp.Extension)
	_, page := get(s, "/notes", false)
	head := page[strings.Index(page, "</title>")+len("</title>") : strings.Index(page, "</head>")]
	head = strings.Replace(head, webmcp.ScriptIntegrity, "sha384-…", 1) // changes with the script
	fmt.Println(strings.Replace(head, "><", ">\n<", 1))
	// Output:
	// <script type="application/json" id="affordances-webmcp">[{"name":"addNote","description":"Add a note","input":{"type":"object","properties":{"text":{"type":"string","maxLength":200}},"required":["text"],"additionalProperties":false},"expose":"public","guard":"the notebook is open","available":true}]</script>
	// <script src="/_affordances/webmcp.js" integrity="sha384-…" defer></script>
}

// TestMount_ServesTheScriptAndListsTheExtension: the script at its path
// with the integrity its tag names, "webmcp" in the site index, and
// neither without the door.
func TestMount_ServesTheScriptAndListsTheExtension(t *testing.T) {
	s := notes(false)
	webmcp.Mount(s)
	code, js := get(s, webmcp.ScriptPath, false)
	if code != 200 || !strings.Contains(js, "modelContext") {
		t.Fatalf("the script: %d %.80q", code, js)
	}
	if !strings.Contains(string(webmcp.ScriptTag), webmcp.ScriptIntegrity) || !strings.HasPrefix(webmcp.ScriptIntegrity, "sha384-") {
		t.Fatalf("the tag %s and the integrity %s", webmcp.ScriptTag, webmcp.ScriptIntegrity)
	}
	var idx protocol.SiteIndex
	_, body := get(s, protocol.WellKnownPath, false)
	if err := json.Unmarshal([]byte(body), &idx); err != nil || !strings.Contains(strings.Join(idx.Extensions, " "), protocol.ExtensionWebMCP) {
		t.Fatalf("the index's extensions: %v %v", idx.Extensions, err)
	}

	bare := notes(false)
	if code, _ := get(bare, webmcp.ScriptPath, false); code != 404 {
		t.Errorf("the script without the door: %d", code)
	}
	_, page := get(bare, "/notes", false)
	_, body = get(bare, protocol.WellKnownPath, false)
	if strings.Contains(page, "affordances-webmcp") || strings.Contains(page, webmcp.ScriptPath) || strings.Contains(body, protocol.ExtensionWebMCP) {
		t.Errorf("without the door, the page or the index names it:\n%s\n%s", page, body)
	}
}

// TestPageTools_OnlyWhatAnAgentMayRunNow: a people-only action is never a
// tool, and an action whose guard says no is not one until it says yes.
func TestPageTools_OnlyWhatAnAgentMayRunNow(t *testing.T) {
	_, page := get(notes(true, webmcp.Extension), "/notes", false)
	if !strings.Contains(page, `id="affordances-webmcp">[]</script>`) {
		t.Errorf("tools of a page whose one agent action is unavailable:\n%s", page)
	}
	_, page = get(notes(false, webmcp.Extension), "/notes", false)
	if strings.Contains(page, "deleteAll") || !strings.Contains(page, `"name":"addNote"`) {
		t.Errorf("the page's tools:\n%s", page)
	}
	// The agent's graph is the same with the door or without it.
	_, with := get(notes(false, webmcp.Extension), "/notes", true)
	_, without := get(notes(false), "/notes", true)
	if with != without {
		t.Errorf("the graph changed with the door:\n%s\n%s", with, without)
	}
}
