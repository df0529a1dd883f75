package site_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site"
	"github.com/affordances-go/affordances/site/sitetest"
)

var (
	shelfStockKey = site.NewKey[int]("stock")
	shelfBoxKey   = site.NewKey[[]string]("box")
)

// shelf is a site with one page built two ways, with the same answers:
// /lazy loads its entities one by one, /eager with one loader.
type shelf struct {
	stock     int
	box       []string
	loads     map[string]int // entity loader runs, by entity
	failStock error
}

func newShelf(t *testing.T) (*shelf, *sitetest.Client) {
	sh := &shelf{stock: 2, loads: map[string]int{}}
	s := site.New(site.Options{Name: "Shelf", Logger: slog.New(slog.DiscardHandler)})
	inStock := site.Guard{Text: "something is in stock", Check: func(r *site.Request, st *site.State) (bool, string) {
		return shelfStockKey.Get(st) > 0, "sold out"
	}}
	finish := func(r *site.Request, st *site.State) error {
		st.MD = fmt.Sprintf("%d in stock", shelfStockKey.Get(st))
		st.Nav = []protocol.Nav{{To: "/", Label: "Home"}}
		return nil
	}
	lazy := s.Page("/lazy", site.PageOptions{
		Entities: []site.EntityLoader{
			site.Entity(shelfStockKey, func(r *site.Request) (int, error) {
				sh.loads["stock"]++
				return sh.stock, sh.failStock
			}),
			site.Entity(shelfBoxKey, func(r *site.Request) ([]string, error) {
				sh.loads["box"]++
				return append([]string{}, sh.box...), nil
			}),
		},
		Finish: finish,
	})
	eager := s.Page("/eager", site.PageOptions{Load: func(r *site.Request) (*site.State, error) {
		st := &site.State{}
		shelfStockKey.Set(st, sh.stock)
		shelfBoxKey.Set(st, append([]string{}, sh.box...))
		return st, finish(r, st)
	}})
	for _, p := range []*site.Page{lazy, eager} {
		site.Handle(p, site.Action{Name: "take", Description: "Take one", Expose: protocol.ExposePublic,
			Guard: inStock, Effects: site.Effects(site.NewKey[any]("box"), site.NewKey[any]("stock"))},
			func(r *site.Request, in struct{}) (site.Done, error) {
				sh.stock--
				sh.box = append(sh.box, "item")
				return site.Done{Message: "taken"}, nil
			})
		site.Handle(p, site.Action{Name: "restock", Description: "Restock", Expose: protocol.ExposePublic},
			func(r *site.Request, in struct{}) (site.Done, error) {
				sh.stock += 2
				return site.Done{}, nil
			})
	}
	return sh, sitetest.New(t, s)
}

// A call loads what its guards read before, and its Effects after; a
// graph loads everything once; the answers are those of one loader.
func TestEntities_ACallLoadsOnlyWhatItReads(t *testing.T) {
	sh, c := newShelf(t)
	g := c.Graph("/lazy", sitetest.Header("Accept", protocol.MediaType+"; md=1")) // the md too, which graphs carry when asked
	if sh.loads["stock"] != 1 || sh.loads["box"] != 1 || g.MD != "2 in stock" || len(g.Nav) != 1 {
		t.Fatalf("graph: loads %v, %+v", sh.loads, g)
	}
	if eager := c.Graph("/eager"); jsonOf(eager.Entities) != jsonOf(g.Entities) || jsonOf(eager.Actions) != jsonOf(g.Actions) {
		t.Errorf("the two pages differ:\n%s\n%s", jsonOf(g), jsonOf(eager))
	}

	clear(sh.loads)
	sh.stock = 1
	lazyTake := c.Call("/lazy", "take", nil).Body.String()
	// Before: stock, for the guards; after: box and stock (the effects).
	// The box is not read before: nothing needs it.
	if sh.loads["stock"] != 2 || sh.loads["box"] != 1 {
		t.Errorf("take loaded %v, want stock twice (guard, effect) and box once (effect)", sh.loads)
	}
	if !strings.Contains(lazyTake, `"actionsAdded":[{"name":"take"`) || !strings.Contains(lazyTake, `"reason":"sold out"`) {
		t.Errorf("the last take should make take unavailable: %s", lazyTake)
	}
	sh.stock, sh.box = 1, nil
	if eagerTake := c.Call("/eager", "take", nil).Body.String(); eagerTake != lazyTake {
		t.Errorf("the deltas differ:\n%s\n%s", lazyTake, eagerTake)
	}

	// Without Effects, the delta compares everything: all of it is loaded
	// before and after, as with one loader.
	clear(sh.loads)
	sh.stock = 0
	lazyRestock := c.Call("/lazy", "restock", nil).Body.String()
	if sh.loads["stock"] != 2 || sh.loads["box"] != 2 {
		t.Errorf("restock loaded %v, want everything twice", sh.loads)
	}
	sh.stock = 0
	if eagerRestock := c.Call("/eager", "restock", nil).Body.String(); eagerRestock != lazyRestock {
		t.Errorf("the deltas differ:\n%s\n%s", lazyRestock, eagerRestock)
	}
	var d protocol.Delta
	if err := jsonUnmarshal(lazyRestock, &d); err != nil || len(d.ActionsAdded) != 1 || !d.ActionsAdded[0].Available {
		t.Errorf("restock should make take available again: %s", lazyRestock)
	}
}

// A loader's ErrNotFound is the page's 404, any other error a 500, in a
// graph and in a call.
func TestEntities_LoaderErrors(t *testing.T) {
	sh, c := newShelf(t)
	sh.failStock = site.ErrNotFound
	if res := c.Get("/lazy", sitetest.Header("Accept", protocol.MediaType)); res.Code != 404 {
		t.Errorf("graph, not found: %d", res.Code)
	}
	if res := c.Call("/lazy", "take", nil); res.Code != 404 {
		t.Errorf("call, not found: %d %s", res.Code, res.Body)
	}
	sh.failStock = errors.New("database down")
	if res := c.Get("/lazy", sitetest.Header("Accept", protocol.MediaType)); res.Code != 500 {
		t.Errorf("graph, failing: %d", res.Code)
	}
	if res := c.Call("/lazy", "take", nil); res.Code != 500 || sh.stock != 2 {
		t.Errorf("call, failing: %d %s (stock %d)", res.Code, res.Body, sh.stock)
	}
}

func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func jsonUnmarshal(s string, v any) error { return json.Unmarshal([]byte(s), v) }

// An effect is named by a key; on a page that loads entity by entity, an
// effect that is none of its entities is a registration error, with the
// file and line of the Handle call.
func TestEffects_CheckedAtRegistration(t *testing.T) {
	s := site.New(site.Options{})
	p := s.Page("/shelf", site.PageOptions{Entities: []site.EntityLoader{
		site.Entity(shelfStockKey, func(*site.Request) (int, error) { return 1, nil }),
	}})
	noop := func(*site.Request, struct{}) (site.Done, error) { return site.Done{}, nil }
	site.Handle(p, site.Action{Name: "ok", Expose: protocol.ExposePublic, Effects: site.Effects(shelfStockKey)}, noop)
	defer func() {
		msg := fmt.Sprint(recover())
		if !strings.Contains(msg, `effect "box" is not one of the page's Entities`) || !strings.Contains(msg, "entities_test.go") {
			t.Errorf("panic: %s", msg)
		}
	}()
	site.Handle(p, site.Action{Name: "typo", Expose: protocol.ExposePublic, Effects: site.Effects(shelfBoxKey)}, noop)
}
