package site_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"strings"

	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site"
)

// book is the example's entity, and bookKey its key: the loader writes it
// with the key, and guards read it with the same key.
type book struct {
	Title string `json:"title"`
	Price int    `json:"price"`
}

var bookKey = site.NewKey[book]("book")

// A page is a pattern, a loader and (usually) an HTML view. An agent that
// asks for the page's URL with the Affordances media type gets its graph.
func ExampleSite_Page() {
	s := site.New(site.Options{Name: "Books"})
	s.Page("/books/{id}", site.PageOptions{
		Description: "One book",
		Load: func(r *site.Request) (*site.State, error) {
			if r.PathValue("id") != "1" {
				return nil, site.ErrNotFound
			}
			st := &site.State{Nav: []protocol.Nav{{To: "/books", Label: "All books"}}}
			bookKey.Set(st, book{Title: "Dune", Price: 999})
			return st, nil
		},
	})

	r := httptest.NewRequest("GET", "/books/1", nil)
	r.Header.Set("Accept", protocol.MediaType)
	w := httptest.NewRecorder()
	s.ServeHTTP(w, r)
	fmt.Println(w.Code, w.Header().Get("Content-Type"))
	fmt.Println(w.Body.String())
	// Output:
	// 200 application/vnd.affordances+json
	// {"v":"0","page":"/books/1","route":"/books/[id]","entities":{"book":{"title":"Dune","price":999}},"actions":[],"nav":[{"to":"/books","label":"All books"}]}
}

// An action is declared with a typed handler. Its input schema comes from
// the struct tags of the input type; the graph lists it with its
// availability for this request.
func ExampleHandle() {
	cart := site.NewKey[[]string]("cart") // the entity, with its Go type
	s := site.New(site.Options{})
	page := s.Page("/cart", site.PageOptions{
		Load: func(r *site.Request) (*site.State, error) {
			st := &site.State{}
			cart.Set(st, []string{})
			return st, nil
		},
	})

	type SetQuantity struct {
		SKU string `json:"sku" description:"the line to change"`
		Qty int    `json:"qty" minimum:"0" maximum:"10"`
	}
	site.Handle(page, site.Action{
		Name:        "setQuantity",
		Description: "Change how many of one item the cart holds",
		Expose:      protocol.ExposePublic,
		Effects:     site.Effects(cart),
		Guard: site.Guard{Text: "the cart is not empty", Check: func(r *site.Request, st *site.State) (bool, string) {
			return len(cart.Get(st)) > 0, "the cart is empty"
		}},
	}, func(r *site.Request, in SetQuantity) (site.Done, error) {
		return site.Done{Message: "Quantity updated."}, nil
	})

	w := httptest.NewRecorder()
	s.ServeHTTP(w, httptest.NewRequest("GET", "/cart?affordances=1", nil))
	var out bytes.Buffer
	json.Indent(&out, w.Body.Bytes(), "", "  ")
	fmt.Println(out.String())
	// Output:
	// {
	//   "v": "0",
	//   "page": "/cart",
	//   "route": "/cart",
	//   "entities": {
	//     "cart": []
	//   },
	//   "actions": [
	//     {
	//       "name": "setQuantity",
	//       "description": "Change how many of one item the cart holds",
	//       "input": {
	//         "type": "object",
	//         "properties": {
	//           "sku": {
	//             "description": "the line to change",
	//             "type": "string"
	//           },
	//           "qty": {
	//             "type": "integer",
	//             "minimum": 0,
	//             "maximum": 10
	//           }
	//         },
	//         "required": [
	//           "sku",
	//           "qty"
	//         ],
	//         "additionalProperties": false
	//       },
	//       "expose": "public",
	//       "guard": "the cart is not empty",
	//       "effects": [
	//         "cart"
	//       ],
	//       "available": false,
	//       "reason": "the cart is empty"
	//     }
	//   ]
	// }
}

// A handler declines with an error the caller can act on: Invalid points
// at a field of the input, NotFound and Unavailable carry a message. Any
// other error is a generic internal error, logged.
func ExampleInvalid() {
	s := site.New(site.Options{Logger: slog.New(slog.DiscardHandler)})
	page := s.Page("/tickets", site.PageOptions{})
	type Book struct {
		Seats int `json:"seats" minimum:"1"`
	}
	site.Handle(page, site.Action{Name: "book", Description: "Book seats", Expose: protocol.ExposePublic},
		func(r *site.Request, in Book) (site.Done, error) {
			if left := 3; in.Seats > left {
				return site.Done{}, site.Invalid("/seats", fmt.Sprintf("only %d left", left))
			}
			return site.Done{Message: "Booked."}, nil
		})

	r := httptest.NewRequest("POST", "/tickets", strings.NewReader(`{"action":"book","input":{"seats":5}}`))
	r.Header.Set("Content-Type", protocol.MediaType)
	w := httptest.NewRecorder()
	s.ServeHTTP(w, r)
	fmt.Println(w.Code, w.Body.String())
	// Output:
	// 400 {"ok":false,"error":{"code":"invalid_input","message":"the input was not accepted","issues":[{"path":"/seats","message":"only 3 left","keyword":"action"}]}}
}
