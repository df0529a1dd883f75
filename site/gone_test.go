package site_test

import (
	"bytes"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/affordances-go/affordances/site"
	"github.com/affordances-go/affordances/site/sitetest"
)

type dial struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

var dialKey = site.NewKey[dial]("dial")

// goneFixture is a page whose action deletes the page's own subject, with
// guards written with Key.Get as the docs teach, whole-page or entity by
// entity; it returns the client and the site's log.
func goneFixture(t *testing.T, perEntity bool) (*sitetest.Client, *bytes.Buffer) {
	t.Helper()
	var mu sync.Mutex
	dials := map[string]string{"1": "Kitchen"}
	var logs bytes.Buffer
	s := site.New(site.Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	loadDial := func(r *site.Request) (dial, error) {
		mu.Lock()
		defer mu.Unlock()
		name, ok := dials[r.PathValue("id")]
		if !ok {
			return dial{}, site.ErrNotFound
		}
		return dial{ID: r.PathValue("id"), Name: name}, nil
	}
	opts := site.PageOptions{Description: "a dial"}
	if perEntity {
		opts.Entities = []site.EntityLoader{site.Entity(dialKey, loadDial)}
	} else {
		opts.Load = func(r *site.Request) (*site.State, error) {
			d, err := loadDial(r)
			if err != nil {
				return nil, err
			}
			st := &site.State{}
			dialKey.Set(st, d)
			return st, nil
		}
	}
	p := s.Page("/dials/{id}", opts)
	named := site.Guard{Text: "the dial has a name", Check: func(r *site.Request, st *site.State) (bool, string) {
		return dialKey.Get(st).Name != "", "the dial has no name"
	}}
	site.Handle(p, site.Action{Name: "rename", Expose: "public", Guard: named},
		func(r *site.Request, in struct {
			Name string `json:"name"`
		}) (site.Result[struct{}], error) {
			return site.Result[struct{}]{}, nil
		})
	site.Handle(p, site.Action{Name: "deleteDial", Expose: "public", Guard: named, Effects: site.Effects(dialKey)},
		func(r *site.Request, _ struct{}) (site.Result[struct{}], error) {
			mu.Lock()
			delete(dials, r.PathValue("id"))
			mu.Unlock()
			return site.Result[struct{}]{Message: "Deleted.", Redirect: "/dials"}, nil
		})
	return sitetest.New(t, s), &logs
}

func TestCall_ThePageGoneAfterItsActionIsNoError(t *testing.T) {
	for _, perEntity := range []bool{false, true} {
		c, logs := goneFixture(t, perEntity)
		w := c.Call("/dials/1", "deleteDial", map[string]any{})
		d := w.Delta()
		if w.Code != 200 || !d.OK || d.Redirect != "/dials" || d.Message != "Deleted." {
			t.Fatalf("per entity %v: %d %s", perEntity, w.Code, w.Body)
		}
		slices.Sort(d.ActionsRemoved)
		if !slices.Equal(d.ActionsRemoved, []string{"deleteDial", "rename"}) || len(d.ActionsAdded) != 0 {
			t.Errorf("per entity %v: actions added %v, removed %v", perEntity, d.ActionsAdded, d.ActionsRemoved)
		}
		if v, ok := d.Changed["dial"]; !ok || v != nil {
			t.Errorf("per entity %v: changed %v, want the dial removed (null)", perEntity, d.Changed)
		}
		if strings.Contains(logs.String(), "level=ERROR") || strings.Contains(logs.String(), "level=WARN") {
			t.Errorf("per entity %v: the log says\n%s", perEntity, logs)
		}
		// The page is gone for the next reader.
		if w := c.Get("/dials/1", sitetest.Header("Accept", agent)); w.Code != 404 {
			t.Errorf("per entity %v: GET after: %d", perEntity, w.Code)
		}
	}
}
