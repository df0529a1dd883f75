package site_test

import (
	"fmt"
	"log/slog"
	"net/http/httptest"
	"strings"

	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site"
)

// A page says cheaply whether its URL names something: a call on a post
// that does not exist is not_found before anything else runs, and the
// action never sees it.
func ExamplePageOptions_exists() {
	posts := map[string]string{"1": "hello"}
	postKey := site.NewKey[string]("post")
	s := site.New(site.Options{Name: "Blog", Logger: slog.New(slog.DiscardHandler)})
	p := s.Page("/posts/{id}/edit", site.PageOptions{
		Exists: func(r *site.Request) error {
			if _, ok := posts[r.PathValue("id")]; !ok {
				return site.ErrNotFound
			}
			return nil
		},
		Entities: []site.EntityLoader{site.Entity(postKey, func(r *site.Request) (string, error) {
			return posts[r.PathValue("id")], nil // Exists found it
		})},
	})
	site.Handle(p, site.Action{Name: "updatePost", Description: "Save the post", Expose: protocol.ExposePublic,
		Effects: site.Effects(postKey)},
		func(r *site.Request, in struct {
			Text string `json:"text"`
		}) (site.Done, error) {
			posts[r.PathValue("id")] = in.Text
			return site.Done{Message: "Post saved."}, nil
		})

	for _, path := range []string{"/posts/999/edit", "/posts/1/edit"} {
		r := httptest.NewRequest("POST", path, strings.NewReader(`{"action":"updatePost","input":{"text":"edited"}}`))
		r.Header.Set("Content-Type", protocol.MediaType)
		w := httptest.NewRecorder()
		s.ServeHTTP(w, r)
		fmt.Println(w.Code, w.Body.String())
	}
	fmt.Println(len(posts), "post")
	// Output:
	// 404 {"ok":false,"error":{"code":"not_found","message":"no such page"}}
	// 200 {"ok":true,"changed":{"post":"edited"},"message":"Post saved."}
	// 1 post
}
