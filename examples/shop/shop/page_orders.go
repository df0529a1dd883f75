package shop

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site"
)

func (a *App) ordersPage() {
	a.site.Page("/orders", site.PageOptions{
		Description: "The signed-in shopper's orders, newest first",
		View:        page("orders.html"),
		Personal:    true,
		Entities:    append(a.header(), site.Group(a.loadOrders, ordersKey)),
	})
}

func (a *App) loadOrders(r *site.Request, st *site.State) error {
	sh := shopperOf(r)
	orders := []Order{}
	if sh.User != nil {
		var err error
		if orders, err = a.store.Orders(r.Context(), sh.User.ID); err != nil {
			return err
		}
	}
	ordersKey.Set(st, orders)
	var md strings.Builder
	md.WriteString("# Orders\n\n")
	if sh.User == nil {
		md.WriteString("Sign in to see your orders.\n")
		st.Nav = append(st.Nav, protocol.Nav{To: "/login", Label: "Sign in"})
	}
	for _, o := range orders {
		fmt.Fprintf(&md, "- [Order %d](/orders/%d): %s, %s\n", o.ID, o.ID, o.Status, o.Total)
		st.Nav = append(st.Nav, protocol.Nav{To: "/orders/" + itoa(o.ID), Label: "Order " + itoa(o.ID)})
	}
	st.MD = md.String()
	return nil
}

// CancelOrder is the input of cancelOrder: nothing but the confirmation.
type CancelOrder struct{}

// Summary says what cancelling the order means, for the person approving.
func (CancelOrder) Summary(r *site.Request, st *site.State) string {
	o := orderKey.Get(st)
	n := 0
	for _, it := range o.Items {
		n += it.Qty
	}
	return fmt.Sprintf("Cancel order %d (%d items, %s)? The items go back in stock.", o.ID, n, o.Total)
}

func (a *App) orderPage() {
	p := a.site.Page("/orders/{id}", site.PageOptions{
		Description: "One order: its items, total and status",
		View:        page("order.html"),
		Personal:    true,
		Exists:      a.orderExists,
		Entities:    append(a.header(), site.Group(a.loadOrder, orderKey)),
	})
	site.Handle(p, site.Action{
		Name: "cancelOrder", Description: "Cancel this order; its items go back in stock",
		Expose: protocol.ExposeConfirm, Effects: site.Effects(orderKey), RequireApproval: a.approvals,
		Guard: site.Guard{Text: "the order has not shipped yet", Check: func(r *site.Request, st *site.State) (bool, string) {
			o := orderKey.Get(st)
			return o.Cancellable(), fmt.Sprintf("the order is %s", o.Status)
		}},
	}, func(r *site.Request, in CancelOrder) (site.Done, error) {
		id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
		if err := a.store.CancelOrder(r.Context(), shopperOf(r).User.ID, id); err != nil {
			return site.Done{}, declined(err)
		}
		return site.Done{Message: fmt.Sprintf("Order %d cancelled.", id)}, nil
	})
}

// orderExists is the order page's existence check: the path names an
// order of the signed-in shopper's, in its one spelling. Anyone else's
// order, or one that does not exist, is not found, before a call of
// cancelOrder does anything else.
func (a *App) orderExists(r *site.Request) error {
	id, ok := orderID(r)
	sh := shopperOf(r)
	if !ok || sh.User == nil {
		return site.ErrNotFound
	}
	return notFound(a.store.OrderExists(r.Context(), sh.User.ID, id))
}

// orderID reads the order's id from the path: /orders/3, never
// /orders/03 or /orders/+3 (one order has one URL).
func orderID(r *site.Request) (int64, bool) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	return id, err == nil && strconv.FormatInt(id, 10) == r.PathValue("id")
}

// loadOrder loads one order of the signed-in shopper; anyone else's, or
// one that does not exist, is not found.
func (a *App) loadOrder(r *site.Request, st *site.State) error {
	sh := shopperOf(r)
	id, ok := orderID(r)
	if !ok || sh.User == nil {
		return site.ErrNotFound
	}
	o, err := a.store.Order(r.Context(), sh.User.ID, id)
	if errors.Is(err, ErrNotFound) {
		return site.ErrNotFound
	}
	if err != nil {
		return err
	}
	orderKey.Set(st, o)
	st.Nav = []protocol.Nav{{To: "/orders", Label: "All orders"}}
	var md strings.Builder
	fmt.Fprintf(&md, "# Order %d\n\nStatus: %s. Placed %s.\n\n", o.ID, o.Status, o.CreatedAt.Format("2 Jan 2006 15:04 UTC"))
	for _, it := range o.Items {
		fmt.Fprintf(&md, "- %d × %s (%s, %s) at %s\n", it.Qty, it.Product, it.Colour, it.Size, it.UnitPrice)
	}
	fmt.Fprintf(&md, "\nTotal: %s\n", o.Total)
	st.MD = md.String()
	return nil
}
