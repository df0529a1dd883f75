package conformance_test

import (
	"context"
	"html/template"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/affordances-go/affordances/conformance"
	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site"
)

// friction1 is a hand-written server with the faults pages.* look for:
// its action runs on any URL of its route (the edit of a post that does
// not exist answers "Post saved."), and a tag page it renders from the
// posts' template carries the link element but serves no graph.
func friction1(t *testing.T, writes *atomic.Int32) *httptest.Server {
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+protocol.WellKnownPath, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"v":"0","routes":[{"route":"/posts/[id]","actions":[{"name":"updatePost","expose":"public"}]}]}`))
	})
	mux.HandleFunc("POST /posts/{id}", func(w http.ResponseWriter, r *http.Request) {
		writes.Add(1)
		w.Header().Set("Content-Type", protocol.MediaType)
		w.Write([]byte(`{"ok":true,"message":"Post saved."}`))
	})
	mux.HandleFunc("GET /", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Accept") == protocol.MediaType {
			w.Header().Set("Content-Type", protocol.MediaType)
			w.WriteHeader(http.StatusNotFound)
			w.Write([]byte(`{"ok":false,"error":{"code":"not_found","message":"no graph"}}`))
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(`<!doctype html><title>Blog</title>` + string(site.LinkTag) + `<a href="/tag/go">go</a>`))
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// goodBlog is the same blog with this project's library: the post page's
// loader says which posts exist, and only pages with a graph carry the
// link element.
func goodBlog(t *testing.T, writes *atomic.Int32) *httptest.Server {
	s := site.New(site.Options{Name: "Blog", Logger: slog.New(slog.DiscardHandler)})
	key := site.NewKey[string]("post")
	view := template.Must(template.New("p").Funcs(site.Funcs()).Parse(
		`<!doctype html><title>Post</title>{{affordancesLink}}<a href="/tag/go">go</a>`))
	p := s.Page("/posts/{id}", site.PageOptions{View: view, Entities: []site.EntityLoader{site.Entity(key, func(r *site.Request) (string, error) {
		if id, _ := strconv.Atoi(r.PathValue("id")); id != 1 {
			return "", site.ErrNotFound
		}
		return "hello", nil
	})}})
	site.Handle(p, site.Action{Name: "updatePost", Description: "Save the post", Expose: protocol.ExposePublic},
		func(r *site.Request, in struct{ Text string }) (site.Done, error) {
			writes.Add(1)
			return site.Done{Message: "Post saved."}, nil
		})
	app := http.NewServeMux()
	app.HandleFunc("GET /tag/{tag}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(`<!doctype html><title>Tag</title><a href="/posts/1">post</a>`))
	})
	srv := httptest.NewServer(s.Wrap(app))
	t.Cleanup(srv.Close)
	return srv
}

// pagesChecks runs the pages.* checks against base, from the given page.
func pagesChecks(t *testing.T, base string, pages ...string) map[string]conformance.Result {
	var checks []conformance.Check
	for _, c := range conformance.Catalogue() {
		if strings.HasPrefix(c.ID, "pages.") {
			checks = append(checks, c)
		}
	}
	rep, err := conformance.RunChecks(context.Background(), conformance.Config{BaseURL: base, Pages: pages}, checks)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]conformance.Result{}
	for _, r := range rep.Results {
		out[r.ID] = r
	}
	return out
}

// The pages.* checks fail a site where an action runs on a page that is
// not there, and one whose HTML announces a graph it does not serve;
// they pass the same blog built with the library, and write nothing.
func TestPagesChecks_CatchAnActionOnAPageThatIsNotThere(t *testing.T) {
	var writes atomic.Int32
	bad := pagesChecks(t, friction1(t, &writes).URL)
	if r := bad["pages.made-up-url"]; r.Status != conformance.Fail || !strings.Contains(r.Detail, "200") {
		t.Errorf("made-up URL on the faulty site: %s %s", r.Status, r.Detail)
	}
	if r := bad["pages.link-without-graph"]; r.Status != conformance.Fail || !strings.Contains(r.Detail, "/") {
		t.Errorf("link without graph on the faulty site: %s %s", r.Status, r.Detail)
	}

	writes.Store(0)
	good := pagesChecks(t, goodBlog(t, &writes).URL, "/posts/1")
	for id, r := range good {
		if r.Status != conformance.Pass {
			t.Errorf("%s on the library's blog: %s %s", id, r.Status, r.Detail)
		}
	}
	if writes.Load() != 0 {
		t.Errorf("the checks wrote %d times on the library's blog", writes.Load())
	}
}
