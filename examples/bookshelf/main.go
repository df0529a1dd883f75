// Command bookshelf is the smallest useful Affordances site: a list of
// books and a page per book. Browsers get HTML; agents that ask for
// application/vnd.affordances+json at the same URLs get graphs.
//
//	go run ./examples/bookshelf
//	curl -H 'Accept: application/vnd.affordances+json' http://127.0.0.1:8080/books/dune
package main

import (
	"context"
	"embed"
	"errors"
	"flag"
	"fmt"
	"html/template"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site"
)

//go:embed templates/*.html
var templates embed.FS

// Book is one book on the shelf.
type Book struct {
	ID     string `json:"id"`
	Title  string `json:"title"`
	Author string `json:"author"`
	Year   int    `json:"year"`
}

// The entities of the two pages, with their Go types.
var (
	booksKey = site.NewKey[[]Book]("books")
	countKey = site.NewKey[int]("count")
	bookKey  = site.NewKey[Book]("book")
)

var books = []Book{
	{"dune", "Dune", "Frank Herbert", 1965},
	{"left-hand", "The Left Hand of Darkness", "Ursula K. Le Guin", 1969},
	{"neuromancer", "Neuromancer", "William Gibson", 1984},
}

// newSite builds the bookshelf site.
func newSite() *site.Site {
	tmpl := template.Must(template.New("").Funcs(site.Funcs()).ParseFS(templates, "templates/*.html"))
	s := site.New(site.Options{Name: "Bookshelf"})
	s.Page("/", site.PageOptions{
		Description: "Every book on the shelf",
		View:        tmpl.Lookup("shelf.html"),
		Load: func(r *site.Request) (*site.State, error) {
			nav := make([]protocol.Nav, len(books))
			for i, b := range books {
				nav[i] = protocol.Nav{To: "/books/" + b.ID, Label: b.Title}
			}
			st := &site.State{Nav: nav, MD: fmt.Sprintf("# Bookshelf\n\n%d books.", len(books))}
			booksKey.Set(st, books)
			countKey.Set(st, len(books))
			return st, nil
		},
	})
	s.Page("/books/{id}", site.PageOptions{
		Description: "One book: title, author and year",
		View:        tmpl.Lookup("book.html"),
		Load: func(r *site.Request) (*site.State, error) {
			for _, b := range books {
				if b.ID == r.PathValue("id") {
					st := &site.State{Nav: []protocol.Nav{{To: "/", Label: "All books"}},
						MD: fmt.Sprintf("# %s\n\n%s, %d.", b.Title, b.Author, b.Year)}
					bookKey.Set(st, b)
					return st, nil
				}
			}
			return nil, site.ErrNotFound
		},
	})
	return s
}

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "address to listen on, HOST:PORT")
	flag.Parse()
	srv := &http.Server{Addr: *addr, Handler: newSite(),
		ReadHeaderTimeout: 5 * time.Second, ReadTimeout: 15 * time.Second, IdleTimeout: 60 * time.Second}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(shutdown)
	}()
	fmt.Printf("Bookshelf on http://%s/ (agents: send Accept: %s)\n", *addr, protocol.MediaType)
	if err := srv.ListenAndServe(); err != nil && !errors.Is(err, http.ErrServerClosed) {
		slog.Error("bookshelf", "err", err)
		os.Exit(1)
	}
}
