package shop

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site"
)

// deliveryKey is the signed-in shopper's saved address, on the checkout
// page: placeOrder sends the order there unless its input gives another.
var deliveryKey = site.NewKey[*Address]("savedAddress")

// PlaceOrder is the input of placeOrder: where to deliver, optionally.
type PlaceOrder struct {
	Address     *Address `json:"address,omitempty" title:"Deliver to" description:"default: savedAddress"`
	SaveAddress bool     `json:"saveAddress,omitempty" title:"Save this address for next orders" description:"keep address for next orders"`
}

// Validate refuses an address with control characters or a field of
// spaces only (see Address.Validate).
func (in PlaceOrder) Validate() error {
	if in.Address == nil {
		return nil
	}
	return in.Address.Validate()
}

// deliverTo is the address the order goes to: the input's, else the
// saved one, else nil.
func (in PlaceOrder) deliverTo(st *site.State) *Address {
	if in.Address != nil {
		a := in.Address.trimmed()
		return &a
	}
	if saved, ok := deliveryKey.Lookup(st); ok && saved != nil {
		return saved
	}
	return nil
}

// Summary lists what the order will contain and where it goes, for the
// person approving: one line per line of the cart, then the total, then
// the address, each field quoted and escaped (safetext.Quote), since an agent
// may have written it. Nothing an agent sends can end a quote, start a
// line, or pass for the shop's own words ("Total: …").
//
// Saving the address is said in words: it changes where the orders an
// agent may place without asking go (a standing approval covers orders to
// the saved address only).
func (in PlaceOrder) Summary(r *site.Request, st *site.State) string {
	s := orderSummary(cartKey.Get(st), in.deliverTo(st))
	if in.SaveAddress && in.Address != nil {
		s += "\nThis address also becomes your saved address: orders your agents may place without asking you will go there."
	}
	return s
}

// Basis identifies the state the summary was built from: the cart's
// lines, prices and total, and the saved address when the call names
// none (an address in the input is the input's, which an approval binds
// on its own). placeOrder computes it again from the cart it reads under
// the cart's lock, and places the order only if it is the one the person
// approved (site.Request.CheckApproved). The checkout page sends the
// basis of the cart it shows, so that its button is the confirmation.
func (in PlaceOrder) Basis(r *site.Request, st *site.State) string {
	return orderBasis(cartKey.Get(st), in.basisAddress(in.deliverTo(st)))
}

// basisAddress is the address a basis covers: the saved one the order
// falls back on, not one the call itself sent.
func (in PlaceOrder) basisAddress(to *Address) *Address {
	if in.Address != nil {
		return nil
	}
	return to
}

// checkoutBasis is the basis of the cart the checkout page shows, for its
// form: the person who presses Place order confirms that cart.
func checkoutBasis(v *site.View) string {
	c, ok := cartKey.Lookup(v.State)
	if !ok {
		return ""
	}
	return orderBasis(c, nil)
}

// orderSummary writes the summary of an order of cart c to address to.
func orderSummary(c Cart, to *Address) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Place an order of %d %s:", c.Count, plural(c.Count, "item", "items"))
	for _, l := range c.Lines {
		fmt.Fprintf(&b, "\n- %d × %s (%s, %s) at %s", l.Qty, l.Product, l.Colour, l.Size, l.UnitPrice)
	}
	fmt.Fprintf(&b, "\nTotal: %s, paid on delivery.", c.Total)
	if to != nil {
		fmt.Fprintf(&b, "\nDeliver to:\n%s", to.Lines())
	}
	return b.String()
}

// orderBasis is the hex SHA-256 of what an order of cart c to address to
// would be: each line's SKU, quantity and unit price, the total, and the
// address.
func orderBasis(c Cart, to *Address) string {
	h := sha256.New()
	for _, l := range c.Lines {
		fmt.Fprintf(h, "%q %d %d %q\n", l.SKU, l.Qty, l.UnitPrice.Amount, l.UnitPrice.Currency)
	}
	fmt.Fprintf(h, "total %d %q\n", c.Total.Amount, c.Total.Currency)
	if to != nil {
		a := to.trimmed()
		fmt.Fprintf(h, "to %q %q %q %q %q\n", a.Name, a.Street, a.Postcode, a.City, a.Country)
	}
	return hex.EncodeToString(h.Sum(nil))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// OrderPlaced is placeOrder's output.
type OrderPlaced struct {
	OrderID int64 `json:"orderId"`
	Total   Money `json:"total"`
}

func (a *App) checkoutPage() {
	p := a.site.Page("/checkout", site.PageOptions{
		Description: "Checkout: review the cart, the delivery address, and place the order",
		View:        page("checkout.html"),
		Personal:    true,
		Entities: append(accountHeader(), site.Group(func(r *site.Request, st *site.State) error {
			st.Nav = []protocol.Nav{{To: "/cart", Label: "Change the cart"}}
			sh := shopperOf(r)
			var saved *Address
			if sh.User == nil {
				st.Nav = append(st.Nav, protocol.Nav{To: "/login", Label: "Sign in", When: "to place the order"})
			} else {
				var err error
				if saved, err = a.store.SavedAddress(r.Context(), sh.User.ID); err != nil {
					return err
				}
				deliveryKey.Set(st, saved)
			}
			if err := a.loadCart(r, st, "Checkout"); err != nil {
				return err
			}
			if saved != nil {
				// The form shows it prefilled; a Markdown reader reads it
				// here, each value quoted and escaped (the person's text).
				st.MD += "\nSaved delivery address, used when the order names none: " + strings.ReplaceAll(saved.Lines(), "\n", ", ") + ".\n"
			}
			return nil
		}, cartKey, deliveryKey)),
	})
	site.Handle(p, site.Action{
		Name: "placeOrder", Description: "Order the cart, paid on delivery",
		Expose: protocol.ExposeConfirm, Effects: site.Effects(cartKey), Guard: cartNotEmpty, RequireApproval: a.approvals,
	}, a.placeOrder)
}

// placeOrder turns the cart into an order delivered to the input's
// address or the saved one; an account without either is asked for one.
func (a *App) placeOrder(r *site.Request, in PlaceOrder) (site.Result[OrderPlaced], error) {
	sh := shopperOf(r)
	ctx := r.Context()
	to := in.Address
	if to == nil {
		saved, err := a.store.SavedAddress(ctx, sh.User.ID)
		if err != nil {
			return site.Result[OrderPlaced]{}, err
		}
		if saved == nil {
			return site.Result[OrderPlaced]{}, site.Invalid("/address", "required: this account has no saved address yet")
		}
		to = saved
	}
	// The order is placed from the cart as it is inside the order's
	// transaction, under the cart's lock, and only if it is the cart (and
	// the address) the person approved.
	var c Cart
	var grant *OrderGrant
	if r.Standing() && sh.Token != nil {
		grant = &OrderGrant{TokenID: sh.Token.ID, Grant: sh.Token.Grant}
	}
	id, err := a.store.PlaceOrderWithGrant(ctx, sh.User.ID, grant, &Delivery{Address: *to, Save: in.SaveAddress && in.Address != nil},
		func(locked Cart) error {
			c = locked
			return r.CheckApproved(orderBasis(locked, in.basisAddress(to)))
		})
	if errors.Is(err, site.ErrApprovalChanged) || errors.Is(err, site.ErrOutsideGrant) {
		return site.Result[OrderPlaced]{}, err
	}
	if err != nil {
		return site.Result[OrderPlaced]{}, declined(err)
	}
	return site.Result[OrderPlaced]{Output: OrderPlaced{OrderID: id, Total: c.Total},
		Message:  fmt.Sprintf("Order %d placed, thank you: %s, paid on delivery, to %s, %s.", id, c.Total, to.trimmed().Street, to.trimmed().City),
		Redirect: "/orders/" + itoa(id)}, nil
}

// AddressField is one field of the checkout's address form, as the
// template draws it.
type AddressField struct {
	Name, Label, Value, Error, Autocomplete string
	// Choices, when set, are drawn as a list to choose from.
	Choices []Country
}

// addressFields lists the address form's fields for the checkout page:
// filled with what a failed form posted, else the saved address, with
// each field's issue from the failed call.
func addressFields(v *site.View) []AddressField {
	var saved Address
	if a, ok := deliveryKey.Lookup(v.State); ok && a != nil {
		saved = *a
	}
	fields := []AddressField{
		{"name", "Name", saved.Name, "", "name", nil},
		{"street", "Street and number", saved.Street, "", "street-address", nil},
		{"postcode", "Postcode", saved.Postcode, "", "postal-code", nil},
		{"city", "City", saved.City, "", "address-level2", nil},
		{"country", "Country", saved.Country, "", "country", nil},
	}
	failed := v.FailedAction == "placeOrder"
	for i := range fields {
		f := &fields[i]
		if failed {
			f.Value = v.Form.Get("address." + f.Name)
			f.Error = v.FieldError("address." + f.Name)
		}
		if f.Name == "country" {
			f.Choices = countryChoices(f.Value)
		}
		f.Name = "address." + f.Name
	}
	return fields
}

// addressError is the message of an issue about the whole address (none
// given, none saved), which no single field shows.
func addressError(v *site.View) string {
	if v.Error == nil || v.FailedAction != "placeOrder" {
		return ""
	}
	for _, is := range v.Error.Issues {
		if is.Path == "/address" {
			return is.Message
		}
	}
	return ""
}
