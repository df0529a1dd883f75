// Command todo is the minimal example of docs/server.md: one page, a list
// that a person edits with forms and an agent with calls, at one URL.
//
//	go run ./examples/todo -addr 127.0.0.1:8081
package main

import (
	_ "embed"
	"flag"
	"fmt"
	"html/template"
	"log"
	"net/http"
	"sync"

	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site"
)

//go:embed page.html
var pageHTML string

// Item is one thing to do.
type Item struct {
	ID   int    `json:"id"`
	Text string `json:"text"`
	Done bool   `json:"done"`
}

// itemsKey is the page's one entity, with its Go type.
var itemsKey = site.NewKey[[]Item]("items")

// Add is the input of the add action. The form labels the field with its
// title; agents read the description.
type Add struct {
	Text string `json:"text" title:"New item" description:"what there is to do, in a few words" minLength:"1" maxLength:"80"`
}

// Finish is the input of the finish action.
type Finish struct {
	ID int `json:"id" description:"the id of the item" minimum:"1"`
}

// List is the to-do list, in memory.
type List struct {
	mu    sync.Mutex
	items []Item
}

func (l *List) snapshot() []Item {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]Item{}, l.items...)
}

// newSite builds the site over a list.
func newSite(list *List) *site.Site {
	view := template.Must(template.New("page").Funcs(site.Funcs()).Parse(pageHTML))
	s := site.New(site.Options{Name: "To do"})
	page := s.Page("/", site.PageOptions{
		Description: "The to-do list",
		View:        view,
		Load: func(r *site.Request) (*site.State, error) {
			st := &site.State{}
			itemsKey.Set(st, list.snapshot())
			return st, nil
		},
	})
	site.Handle(page, site.Action{
		Name:        "add",
		Description: "Add an item to the list",
		Expose:      protocol.ExposePublic,
		Effects:     site.Effects(itemsKey),
	}, func(r *site.Request, in Add) (site.Done, error) {
		list.mu.Lock()
		defer list.mu.Unlock()
		if len(list.items) >= 20 {
			return site.Done{}, site.Unavailable("the list is full: finish something first")
		}
		list.items = append(list.items, Item{ID: len(list.items) + 1, Text: in.Text})
		return site.Done{Message: "Added."}, nil
	})
	site.Handle(page, site.Action{
		Name:        "finish",
		Description: "Mark an item as done",
		Expose:      protocol.ExposePublic,
		Effects:     site.Effects(itemsKey),
		Guard: site.Guard{Text: "something is left to do", Check: func(r *site.Request, st *site.State) (bool, string) {
			for _, it := range itemsKey.Get(st) {
				if !it.Done {
					return true, ""
				}
			}
			return false, "everything is done"
		}},
	}, func(r *site.Request, in Finish) (site.Done, error) {
		list.mu.Lock()
		defer list.mu.Unlock()
		if in.ID > len(list.items) {
			return site.Done{}, site.NotFound("there is no item %d", in.ID)
		}
		list.items[in.ID-1].Done = true
		return site.Done{Message: fmt.Sprintf("Item %d done.", in.ID)}, nil
	})
	return s
}

func main() {
	addr := flag.String("addr", "127.0.0.1:8081", "the address to listen on (the demo store takes 8080)")
	flag.Parse()
	fmt.Printf("To do on http://%s/\n", *addr)
	log.Fatal(http.ListenAndServe(*addr, newSite(&List{})))
}
