package inspector_test

import (
	"fmt"
	"net/http/httptest"
	"strings"

	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site"
	"github.com/affordances-go/affordances/site/inspector"
)

// Mount the inspector with the site's other registrations, in
// development only, and open it on one of the site's pages: it shows the
// page's graph, its size in tokens and a form for each action.
func Example() {
	s := site.New(site.Options{})
	p := s.Page("/hello", site.PageOptions{Description: "A greeting"})
	site.Handle(p, site.Action{Name: "wave", Description: "Wave back", Expose: protocol.ExposePublic},
		func(r *site.Request, _ struct{}) (site.Done, error) { return site.Done{Message: "hi"}, nil })
	inspector.Mount(s)

	w := httptest.NewRecorder()
	s.ServeHTTP(w, httptest.NewRequest("GET", inspector.Path+"?page=/hello", nil))
	body := w.Body.String()
	fmt.Println(w.Code, w.Header().Get("Content-Type"))
	// The graph is shown as text in the page, HTML-escaped.
	fmt.Println(strings.Contains(body, "&#34;route&#34;: &#34;/hello&#34;"), strings.Contains(body, "Wave back"))
	// Output:
	// 200 text/html; charset=utf-8
	// true true
}
