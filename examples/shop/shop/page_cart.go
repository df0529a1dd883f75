package shop

import (
	"fmt"
	"strings"

	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site"
)

// SetQuantity is the input of setQuantity.
type SetQuantity struct {
	SKU string `json:"sku" description:"the SKU of the cart line" pattern:"^[A-Z0-9-]{3,40}$" example:"TEE-BLK-M"`
	Qty int    `json:"qty" description:"the new quantity; 0 removes the line" minimum:"0" maximum:"10"`
}

// RemoveFromCart is the input of removeFromCart.
type RemoveFromCart struct {
	SKU string `json:"sku" description:"the SKU of the cart line" pattern:"^[A-Z0-9-]{3,40}$" example:"TEE-BLK-M"`
}

// cartNotEmpty is the guard of the actions on the whole cart, on the cart
// and checkout pages.
var cartNotEmpty = site.Guard{Text: "the cart is not empty", Check: func(r *site.Request, st *site.State) (bool, string) {
	return cartKey.Get(st).Count > 0, "your cart is empty"
}}

func cartMD(title string, c Cart) string {
	var md strings.Builder
	fmt.Fprintf(&md, "# %s\n\n", title)
	if len(c.Lines) == 0 {
		md.WriteString("The cart is empty.\n")
		return md.String()
	}
	for _, l := range c.Lines {
		fmt.Fprintf(&md, "- %d × %s (%s, %s) `%s`: %s\n", l.Qty, l.Product, l.Colour, l.Size, l.SKU, l.Total)
	}
	fmt.Fprintf(&md, "\nTotal: %s\n", c.Total)
	return md.String()
}

// loadCart sets the whole cart and its Markdown under a title.
func (a *App) loadCart(r *site.Request, st *site.State, title string) error {
	c, err := a.store.Cart(r.Context(), shopperOf(r).owner())
	if err != nil {
		return err
	}
	cartKey.Set(st, c)
	st.MD = cartMD(title, c)
	return nil
}

func (a *App) cartPage() {
	p := a.site.Page("/cart", site.PageOptions{
		Description: "The cart: its lines, quantities and total",
		View:        page("cart.html"),
		Personal:    true,
		Transact:    a.store.Transact, // the guard's cart is the cart the action changes
		Entities: append(accountHeader(), site.Group(func(r *site.Request, st *site.State) error {
			st.Nav = []protocol.Nav{{To: "/checkout", Label: "Checkout", When: "the cart is not empty"}, {To: "/", Label: "Catalog"}}
			return a.loadCart(r, st, "Cart")
		}, cartKey)),
	})
	site.Handle(p, site.Action{
		Name: "setQuantity", Description: "Change how many of one cart line to buy; 0 removes it",
		Expose: protocol.ExposePublic, Effects: site.Effects(cartKey), Guard: cartNotEmpty,
	}, func(r *site.Request, in SetQuantity) (site.Done, error) {
		if err := a.store.SetQuantity(r.Context(), shopperOf(r).owner(), in.SKU, in.Qty); err != nil {
			return site.Done{}, declined(err)
		}
		return site.Done{Message: fmt.Sprintf("%s set to %d.", in.SKU, in.Qty)}, nil
	})
	site.Handle(p, site.Action{
		Name: "removeFromCart", Description: "Remove one line from the cart",
		Expose: protocol.ExposePublic, Effects: site.Effects(cartKey), Guard: cartNotEmpty,
	}, func(r *site.Request, in RemoveFromCart) (site.Done, error) {
		if err := a.store.SetQuantity(r.Context(), shopperOf(r).owner(), in.SKU, 0); err != nil {
			return site.Done{}, declined(err)
		}
		return site.Done{Message: fmt.Sprintf("%s removed from your cart.", in.SKU)}, nil
	})
}
