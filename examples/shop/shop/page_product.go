package shop

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site"
)

// ProductMD is the Markdown rendering of a product page: what it is, its
// price, each colour's sizes with their stock and SKU (the HTML's stock
// table, in a line per colour), and what cannot be bought. A Markdown
// reader (an agent asking for text/markdown, a WebMCP readPage) has this
// instead of the entities, so it carries what an agent needs to choose
// and add a size.
func ProductMD(prod *Product) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n%s. %s\n", prod.Name, prod.Price, prod.Description)
	if len(prod.Variants) > 0 {
		b.WriteString("\nStock by colour and size (SKU):\n")
	}
	var colours []string
	sizes := map[string][]string{}
	var out []string
	for _, v := range prod.Variants {
		if _, seen := sizes[v.Colour]; !seen {
			colours = append(colours, v.Colour)
		}
		sizes[v.Colour] = append(sizes[v.Colour], fmt.Sprintf("%s %d (%s)", v.Size, v.Stock, v.SKU))
		if v.Stock == 0 {
			out = append(out, v.Colour+" "+v.Size)
		}
	}
	for _, c := range colours {
		fmt.Fprintf(&b, "- %s: %s\n", c, strings.Join(sizes[c], ", "))
	}
	if len(out) > 0 {
		b.WriteString("\nSold out: " + strings.Join(out, ", ") + ".\n")
	}
	return b.String()
}

// guestCartNeedsCookies is why an anonymous caller whose connection keeps
// no cookies (MCP) cannot add to a cart: a guest's cart is a cookie.
const guestCartNeedsCookies = "a guest's cart lives in a browser cookie, which this connection cannot hold: " +
	"call with a bearer token (a signed-in person creates one on /account)"

// AddToCart is the input of addToCart.
type AddToCart struct {
	SKU string `json:"sku" description:"the SKU of the colour and size to add" pattern:"^[A-Z0-9-]{3,40}$" example:"TEE-BLK-M"`
	Qty int    `json:"qty,omitempty" minimum:"1" maximum:"10" default:"1"`
}

// Guard checks that the SKU is a size of this product and in stock.
func (in AddToCart) Guard(r *site.Request, st *site.State) (bool, string) {
	p := productKey.Get(st)
	v := p.Variant(in.SKU)
	switch {
	case v == nil:
		return false, fmt.Sprintf("%s is not a size of %s", in.SKU, p.Name)
	case v.Stock == 0:
		return false, fmt.Sprintf("%s (%s, %s) is out of stock", p.Name, v.Colour, v.Size)
	}
	return true, ""
}

func (a *App) productPage() {
	p := a.site.Page("/products/{slug}", site.PageOptions{
		CacheFor:    publicPageTTL, // stock in a proxy cache is at most this old
		Description: "One product: its colours and sizes, each with its own stock",
		View:        page("product.html"),
		// A made-up slug is not found before anything else runs.
		Exists: func(r *site.Request) error {
			return notFound(a.store.ProductExists(r.Context(), r.PathValue("slug")))
		},
		// One loader per entity: a call to addToCart reads the product
		// for its guards and, after it ran, the cart alone.
		Entities: append([]site.EntityLoader{site.Entity(productKey, a.product)}, a.header()...),
		// The stock the guard reads is the stock addToCart takes from.
		Transact: a.store.Transact,
		Finish: func(r *site.Request, st *site.State) error {
			st.Nav = []protocol.Nav{{To: "/", Label: "Catalog"}, {To: "/cart", Label: "Cart"}, {To: "/checkout", Label: "Checkout", When: "the cart is not empty"}}
			st.MD = ProductMD(productKey.Get(st))
			return nil
		},
	})
	site.Handle(p, site.Action{
		Name:        "addToCart",
		Description: "Put one colour and size of this product in the cart",
		Expose:      protocol.ExposePublic,
		Effects:     site.Effects(cartSummaryKey),
		Guard: site.Guard{Text: "the size is in stock", Check: func(r *site.Request, st *site.State) (bool, string) {
			if sh := shopperOf(r); !r.KeepsCookies() && sh.User == nil && sh.GuestHash == "" {
				return false, guestCartNeedsCookies
			}
			return productKey.Get(st).InStock(), "sold out in every size"
		}},
	}, a.addToCart)
}

// notFound turns the store's ErrNotFound into the site's.
func notFound(err error) error {
	if errors.Is(err, ErrNotFound) {
		return site.ErrNotFound
	}
	return err
}

// product loads the product the page's path names.
func (a *App) product(r *site.Request) (*Product, error) {
	prod, err := a.store.Product(r.Context(), r.PathValue("slug"))
	if errors.Is(err, ErrNotFound) {
		return nil, site.ErrNotFound
	}
	return prod, err
}

func (a *App) addToCart(r *site.Request, in AddToCart) (site.Result[CartLine], error) {
	sh := shopperOf(r)
	if sh.User == nil && sh.GuestHash == "" {
		// A guest's first item: the cart is tied to a new cookie.
		plain, hash := secret("g_")
		r.SetCookie(&http.Cookie{Name: guestCookie, Value: plain, Path: "/", HttpOnly: true,
			SameSite: http.SameSiteLaxMode, MaxAge: int(guestCartLifetime.Seconds())})
		sh = &shopper{GuestHash: hash}
		r.Caller = site.Caller{ID: "guest:" + hash[:16], Mode: protocol.AuthCookie, User: sh}
	}
	line, err := a.store.AddToCart(r.Context(), sh.owner(), in.SKU, max(in.Qty, 1))
	if err != nil {
		return site.Result[CartLine]{}, declined(err)
	}
	return site.Result[CartLine]{Output: line,
		Message: fmt.Sprintf("Added %d × %s (%s, %s) to your cart.", max(in.Qty, 1), line.Product, line.Colour, line.Size)}, nil
}
