package sitetest_test

import (
	"fmt"
	"log/slog"

	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site"
	"github.com/affordances-go/affordances/site/sitetest"
)

// A test reads a page's graph and calls its action as an agent would, in
// process. In a test, pass the test's t instead of nil.
func ExampleNew() {
	count := site.NewKey[int]("count")
	n := 0
	s := site.New(site.Options{AuditLogger: slog.New(slog.DiscardHandler)})
	p := s.Page("/counter", site.PageOptions{Load: func(r *site.Request) (*site.State, error) {
		st := &site.State{}
		count.Set(st, n)
		return st, nil
	}})
	type Add struct {
		By int `json:"by" minimum:"1" maximum:"10"`
	}
	site.Handle(p, site.Action{Name: "add", Description: "Add to the counter", Expose: protocol.ExposePublic, Effects: site.Effects(site.NewKey[any]("count"))},
		func(r *site.Request, in Add) (site.Done, error) {
			n += in.By
			return site.Done{Message: fmt.Sprintf("Added %d.", in.By)}, nil
		})

	c := sitetest.New(nil, s)
	g := c.Graph("/counter")
	fmt.Println(g.Actions[0].Name, g.Actions[0].Available)

	res := c.Call("/counter", "add", map[string]any{"by": 2})
	fmt.Println(res.ErrorCode(), res.Delta().Message, res.Delta().Changed["count"])

	res = c.Call("/counter", "add", map[string]any{"by": 50})
	fmt.Println(res.ErrorCode(), res.Delta().Error.Issues[0].Path)
	// Output:
	// add true
	// ok Added 2. 2
	// invalid_input /by
}
