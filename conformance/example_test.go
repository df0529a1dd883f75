package conformance_test

import (
	"context"
	"fmt"
	"net/http/httptest"

	"github.com/affordances-go/affordances/conformance"
	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site"
)

// Check a running site against the protocol's rules, as `afford check`
// does: here a small site of one page, served on loopback. Every must rule
// holds; the checks that need what this site does not have (a token, a
// confirm action) are skipped, not failed.
func Example() {
	s := site.New(site.Options{Name: "Greetings"})
	p := s.Page("/hello", site.PageOptions{Description: "A greeting"})
	site.Handle(p, site.Action{Name: "wave", Description: "Wave back", Expose: protocol.ExposePublic},
		func(r *site.Request, _ struct{}) (site.Done, error) { return site.Done{Message: "hi"}, nil })
	srv := httptest.NewServer(s)
	defer srv.Close()

	report, err := conformance.Run(context.Background(), conformance.Config{BaseURL: srv.URL,
		Safe: &conformance.Action{Page: "/hello", Name: "wave"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("pages:", len(report.Pages), "checks passed:", report.Passed > 0)
	fmt.Println("must rules failed:", report.MustFailed())
	// Output:
	// pages: 1 checks passed: true
	// must rules failed: false
}
