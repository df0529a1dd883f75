package site_test

import (
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site"
	"github.com/affordances-go/affordances/site/sitetest"
)

var (
	deskNameKey  = site.NewKey[string]("name")
	deskNotesKey = site.NewKey[[]string]("notes")
	deskCountKey = site.NewKey[int]("count")
	deskOwnerKey = site.NewKey[string]("owner")
)

// desk is a page whose content is one Group (name, notes and their count
// read together, as one query would) beside an Entity for its header.
type desk struct {
	notes []string
	runs  map[string]int // loader runs, by loader
}

func newDesk(t *testing.T) (*desk, *sitetest.Client) {
	d := &desk{runs: map[string]int{}}
	s := site.New(site.Options{Name: "Desk", Logger: slog.New(slog.DiscardHandler)})
	p := s.Page("/desk", site.PageOptions{Entities: []site.EntityLoader{
		site.Group(func(r *site.Request, st *site.State) error {
			d.runs["content"]++
			deskNameKey.Set(st, "my desk")
			deskNotesKey.Set(st, append([]string{}, d.notes...))
			deskCountKey.Set(st, len(d.notes))
			st.MD = fmt.Sprintf("# My desk\n\n%d notes\n", len(d.notes))
			return nil
		}, deskNameKey, deskNotesKey, deskCountKey),
		site.Entity(deskOwnerKey, func(*site.Request) (string, error) {
			d.runs["owner"]++
			return "ann", nil
		}),
	}})
	roomLeft := site.Guard{Text: "fewer than 3 notes", Check: func(r *site.Request, st *site.State) (bool, string) {
		return deskCountKey.Get(st) < 3 && len(deskNotesKey.Get(st)) < 3, "the desk is full"
	}}
	site.Handle(p, site.Action{Name: "note", Expose: protocol.ExposePublic, Guard: roomLeft,
		Effects: site.Effects(deskNotesKey, deskCountKey)},
		func(r *site.Request, in struct {
			Text string `json:"text"`
		}) (site.Done, error) {
			d.notes = append(d.notes, in.Text)
			return site.Done{Message: "noted"}, nil
		})
	return d, sitetest.New(t, s)
}

// A Group runs once when any of its entities is read, however many of
// them are; a call leaves the other loaders alone; after the action the
// group is loaded again for its keys among the Effects; a graph loads all.
func TestGroup_OneLoaderForSeveralEntities(t *testing.T) {
	d, c := newDesk(t)
	g := c.Graph("/desk", sitetest.Header("Accept", protocol.MediaType+"; md=1")) // the md too, which graphs carry when asked
	if d.runs["content"] != 1 || d.runs["owner"] != 1 || g.MD != "# My desk\n\n0 notes\n" ||
		jsonOf(g.Entities) != `{"count":0,"name":"my desk","notes":[],"owner":"ann"}` {
		t.Fatalf("graph: runs %v, md %q, entities %s", d.runs, g.MD, jsonOf(g.Entities))
	}
	d.runs = map[string]int{}
	res := c.Call("/desk", "note", map[string]any{"text": "milk"})
	if res.Code != 200 {
		t.Fatal(res.Code, res.Body)
	}
	delta := res.Delta()
	if d.runs["content"] != 2 || d.runs["owner"] != 0 {
		t.Errorf("a call: runs %v, want the group before and after, the owner never", d.runs)
	}
	if jsonOf(delta.Changed) != `{"count":1,"notes":["milk"]}` {
		t.Errorf("changed %s", jsonOf(delta.Changed))
	}
	c.Call("/desk", "note", map[string]any{"text": "eggs"})
	res = c.Call("/desk", "note", map[string]any{"text": "bread"})
	if d := res.Delta(); !d.OK || len(d.ActionsAdded) != 1 || d.ActionsAdded[0].Available || d.ActionsAdded[0].Reason != "the desk is full" {
		t.Errorf("the third note: %s", res.Body)
	}
	if res := c.Call("/desk", "note", map[string]any{"text": "more"}); res.Code != 409 {
		t.Errorf("a full desk: %d %s", res.Code, res.Body)
	}
}

// A Group's keys are the page's entities for its actions' Effects; a
// Group that names nothing, or two loaders of one entity, are
// registration errors.
func TestGroup_RegistrationErrors(t *testing.T) {
	noop := func(*site.Request, struct{}) (site.Done, error) { return site.Done{}, nil }
	fill := func(*site.Request, *site.State) error { return nil }
	s := site.New(site.Options{})
	p := s.Page("/g", site.PageOptions{Entities: []site.EntityLoader{site.Group(fill, deskNameKey, deskCountKey)}})
	site.Handle(p, site.Action{Name: "ok", Expose: protocol.ExposePublic, Effects: site.Effects(deskCountKey)}, noop)
	for name, register := range map[string]func(){
		`effect "owner" is not one of the page's Entities`: func() {
			site.Handle(p, site.Action{Name: "typo", Expose: protocol.ExposePublic, Effects: site.Effects(deskOwnerKey)}, noop)
		},
		"a site.Group that names no entity": func() {
			s.Page("/empty", site.PageOptions{Entities: []site.EntityLoader{site.Group(fill)}})
		},
		`two entity loaders for "count"`: func() {
			s.Page("/twice", site.PageOptions{Entities: []site.EntityLoader{site.Group(fill, deskNameKey, deskCountKey),
				site.Entity(deskCountKey, func(*site.Request) (int, error) { return 0, nil })}})
		},
	} {
		func() {
			defer func() {
				if msg := fmt.Sprint(recover()); !strings.Contains(msg, name) {
					t.Errorf("want a panic with %q, got %s", name, msg)
				}
			}()
			register()
		}()
	}
}
