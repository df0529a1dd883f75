package site_test

import (
	"context"
	"log/slog"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site"
	"github.com/affordances-go/affordances/site/sitetest"
)

var postKey = site.NewKey[string]("post")

// blog is a site with two pages of posts, /posts/{id} whose loader alone
// knows which posts exist, and /drafts/{id} which declares Exists (a
// draft exists for its author, alice, alone). Each has an action whose
// guard reads nothing, so that a call would never run the loader.
type blog struct {
	posts   map[int]string
	exists  int // Exists runs
	loads   int // entity loader runs
	updates int
}

func newBlog(t *testing.T) (*blog, *site.Site, *sitetest.Client) {
	b := &blog{posts: map[int]string{1: "hello"}}
	s := site.New(site.Options{Name: "Blog", Auth: testAuth, Logger: slog.New(slog.DiscardHandler)})
	post := func(r *site.Request) (string, error) {
		b.loads++
		id, _ := strconv.Atoi(r.PathValue("id"))
		text, ok := b.posts[id]
		if !ok {
			return "", site.ErrNotFound
		}
		return text, nil
	}
	update := func(r *site.Request, in struct{ Text string }) (site.Done, error) {
		id, _ := strconv.Atoi(r.PathValue("id"))
		b.posts[id] = in.Text
		b.updates++
		return site.Done{Message: "Post saved."}, nil
	}
	posts := s.Page("/posts/{id}", site.PageOptions{Entities: []site.EntityLoader{site.Entity(postKey, post)}})
	drafts := s.Page("/drafts/{id}", site.PageOptions{
		Exists: func(r *site.Request) error {
			b.exists++
			id, _ := strconv.Atoi(r.PathValue("id"))
			if _, ok := b.posts[id]; !ok || r.Caller.User != "alice" {
				return site.ErrNotFound // not there, or not yours: one answer
			}
			return nil
		},
		Entities: []site.EntityLoader{site.Entity(postKey, post)},
	})
	for _, p := range []*site.Page{posts, drafts} {
		site.Handle(p, site.Action{Name: "updatePost", Description: "Save the post", Expose: protocol.ExposeSession,
			Effects: site.Effects(postKey)}, update)
	}
	return b, s, sitetest.New(t, s)
}

// A call on a URL whose page does not exist answers 404 not_found and
// runs nothing, on every door, whether the page declares Exists or its
// loaders alone know: the loader's access check is not skipped because
// the action's guard reads nothing.
func TestExists_NoActionRunsOnAPageThatIsNotThere(t *testing.T) {
	b, s, c := newBlog(t)
	alice := sitetest.Header("Cookie", "session=alice")
	for _, path := range []string{"/posts/999", "/drafts/999"} {
		res := c.CallBody(path, `{"action":"updatePost","input":{"Text":"spam"}}`, alice)
		if res.Code != 404 || !strings.Contains(res.Body.String(), `"code":"not_found"`) {
			t.Errorf("%s: %d %s", path, res.Code, res.Body)
		}
		// Anonymous: the page is not there before the caller is checked.
		if res := c.Call(path, "updatePost", map[string]string{"Text": "spam"}); res.Code != 404 {
			t.Errorf("%s, anonymous: %d %s, want 404 before 401", path, res.Code, res.Body)
		}
		hr := httptest.NewRequest("POST", path, nil)
		hr.Header.Set("Cookie", "session=alice")
		hr.Header.Set("Origin", "https://example.com")
		if _, err := s.Execute(hr, site.Call{Page: path, Transport: site.TransportAgent,
			Call: protocol.Call{Action: "updatePost", Input: []byte(`{"Text":"spam"}`)}}); !strings.Contains(errString(err), "no such page") {
			t.Errorf("%s through Execute: %v", path, err)
		}
	}
	if b.updates != 0 || len(b.posts) != 1 {
		t.Fatalf("an action ran on a page that is not there: %d updates, posts %v", b.updates, b.posts)
	}
	// The page that is there runs the action once.
	if res := c.CallBody("/posts/1", `{"action":"updatePost","input":{"Text":"edited"}}`, alice); res.Code != 200 || b.posts[1] != "edited" {
		t.Fatalf("the post that exists: %d %s", res.Code, res.Body)
	}
}

// A page that declares Exists answers from it first: not found for
// another caller (no access) before its loaders run, and a call reads only
// what it needs, Exists once and the loaders of its effects.
func TestExists_IsTheCheapCheckLoadersAndActionsShare(t *testing.T) {
	b, _, c := newBlog(t)
	if res := c.Get("/drafts/1", sitetest.Header("Accept", protocol.MediaType, "Cookie", "session=bob")); res.Code != 404 || b.loads != 0 {
		t.Errorf("bob's graph of alice's draft: %d, %d loads", res.Code, b.loads)
	}
	if res := c.CallBody("/drafts/1", `{"action":"updatePost","input":{"Text":"bob"}}`, sitetest.Header("Cookie", "session=bob")); res.Code != 404 || b.loads != 0 {
		t.Errorf("bob's call on alice's draft: %d %s, %d loads", res.Code, res.Body, b.loads)
	}
	b.exists, b.loads = 0, 0
	res := c.CallBody("/drafts/1", `{"action":"updatePost","input":{"Text":"v2"}}`, sitetest.Header("Cookie", "session=alice"))
	if res.Code != 200 || b.posts[1] != "v2" || b.exists != 1 || b.loads != 1 {
		t.Errorf("alice's call: %d %s; Exists ran %d times, loaders %d (want 1 and 1: the effect)", res.Code, res.Body, b.exists, b.loads)
	}
	if g := c.Graph("/drafts/1", sitetest.Header("Cookie", "session=alice")); g.Entities["post"] != "v2" {
		t.Errorf("alice's graph: %+v", g.Entities)
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// A page with Transact and no Exists is found inside the call's
// transaction, where its loaders read: its action never runs on a page
// that is not there, and the transaction rolls back.
func TestExists_InTheTransactionOfAPageWithoutExists(t *testing.T) {
	var log []string
	updates := 0
	s := site.New(site.Options{Name: "Blog", Logger: slog.New(slog.DiscardHandler)})
	p := s.Page("/posts/{id}", site.PageOptions{
		Entities: []site.EntityLoader{site.Entity(postKey, func(r *site.Request) (string, error) {
			if r.PathValue("id") != "1" {
				return "", site.ErrNotFound
			}
			return "hello", nil
		})},
		Transact: func(ctx context.Context, fn func(context.Context) error) error {
			log = append(log, "begin")
			if err := fn(ctx); err != nil {
				log = append(log, "rollback")
				return err
			}
			log = append(log, "commit")
			return nil
		},
	})
	site.Handle(p, site.Action{Name: "touch", Description: "Touch", Expose: protocol.ExposePublic, Effects: site.Effects(postKey)},
		func(r *site.Request, in struct{}) (site.Done, error) { updates++; return site.Done{}, nil })
	c := sitetest.New(t, s)
	if res := c.Call("/posts/999", "touch", nil); res.Code != 404 || updates != 0 || strings.Join(log, " ") != "begin rollback" {
		t.Errorf("a made-up post: %d %s, %d updates, transactions %v", res.Code, res.Body, updates, log)
	}
	if res := c.Call("/posts/1", "touch", nil); res.Code != 200 || updates != 1 {
		t.Errorf("the post: %d %s", res.Code, res.Body)
	}
}
