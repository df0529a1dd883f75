package site_test

import (
	"log/slog"
	"strings"
	"testing"

	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site"
	"github.com/affordances-go/affordances/site/sitetest"
)

// A page's md repeats what its entities hold: a graph leaves it out, so
// that an agent pays for the page once, unless the agent asks for it
// (md=1 on the media type) or the page has no entities (then md is all
// it shows). The Markdown answer keeps it.
func TestGraph_MDOnlyWhenAskedOrAlone(t *testing.T) {
	s := site.New(site.Options{Name: "Notes", Logger: slog.New(slog.DiscardHandler)})
	count := site.NewKey[int]("count")
	s.Page("/notes", site.PageOptions{Load: func(r *site.Request) (*site.State, error) {
		st := &site.State{MD: "# Notes\n\n2 notes\n"}
		count.Set(st, 2)
		return st, nil
	}})
	s.Page("/about", site.PageOptions{Load: func(r *site.Request) (*site.State, error) {
		return &site.State{MD: "# About\n\nA page of words.\n"}, nil
	}})
	c := sitetest.New(t, s)
	if g := c.Graph("/notes"); g.MD != "" || len(g.Entities) != 1 {
		t.Errorf("a graph with entities carries md %q", g.MD)
	}
	if g := c.Graph("/notes", sitetest.Header("Accept", protocol.MediaType+"; md=1")); g.MD != "# Notes\n\n2 notes\n" {
		t.Errorf("asked with md=1: md %q", g.MD)
	}
	if g := c.Graph("/about"); g.MD != "# About\n\nA page of words.\n" {
		t.Errorf("a page without entities: md %q", g.MD)
	}
	if res := c.Do("GET", "/notes", nil, sitetest.Header("Accept", "text/markdown")); !strings.Contains(res.Body.String(), "2 notes") {
		t.Errorf("the Markdown answer lost the page's md: %s", res.Body.String())
	}
}
