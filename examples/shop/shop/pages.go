package shop

import (
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site"
	"github.com/affordances-go/affordances/site/ratelimit"
)

// PageSize is how many products a catalog page lists.
const PageSize = 8

// CartSummary is the cart as the header of every page shows it.
type CartSummary struct {
	Count int   `json:"count"`
	Total Money `json:"total"`
}

// Account is who is signed in, as the header shows it.
type Account struct {
	SignedIn bool   `json:"signedIn"`
	Name     string `json:"name,omitempty"`
}

// common loads what every page's header shows: the cart summary and the
// account.
func (a *App) common(r *site.Request, entities map[string]any) error {
	sh := shopperOf(r)
	c, err := a.store.Cart(r.Context(), sh.owner())
	if err != nil {
		return err
	}
	if _, full := entities["cart"]; !full {
		entities["cart"] = CartSummary{Count: c.Count, Total: c.Total}
	}
	acc := Account{SignedIn: sh.User != nil}
	if sh.User != nil {
		acc.Name = sh.User.Name
	}
	entities["account"] = acc
	return nil
}

func (a *App) register() {
	a.catalogPage()
	a.productPage()
	a.cartPage()
	a.checkoutPage()
	a.ordersPage()
	a.orderPage()
	a.loginPage()
	a.accountPage()
}

// Catalog is the product list of one catalog page.
type Catalog struct {
	Query    string           `json:"query,omitempty"`
	Count    int              `json:"count"`
	Page     int              `json:"page"`
	Pages    int              `json:"pages"`
	Products []ProductSummary `json:"products"`
}

func (a *App) catalogPage() {
	a.site.Page("/", site.PageOptions{
		Description: "The catalog: every product, with search (?q=) and pages (?page=)",
		View:        page("catalog.html"),
		Load: func(r *site.Request) (*site.State, error) {
			q := strings.TrimSpace(r.URL.Query().Get("q"))
			n, _ := strconv.Atoi(r.URL.Query().Get("page"))
			n = max(n, 1)
			products, count, err := a.store.Catalog(r.Context(), q, (n-1)*PageSize, PageSize)
			if err != nil {
				return nil, err
			}
			pages := max(1, int(math.Ceil(float64(count)/PageSize)))
			c := Catalog{Query: q, Count: count, Page: n, Pages: pages, Products: products}
			st := &site.State{Entities: map[string]any{"catalog": c}}
			if err := a.common(r, st.Entities); err != nil {
				return nil, err
			}
			for _, p := range products {
				st.Nav = append(st.Nav, protocol.Nav{To: "/products/" + p.Slug, Label: p.Name})
			}
			link := func(page int) string {
				v := []string{}
				if q != "" {
					v = append(v, "q="+urlQuery(q))
				}
				v = append(v, "page="+strconv.Itoa(page))
				return "/?" + strings.Join(v, "&")
			}
			if n < pages {
				st.Nav = append(st.Nav, protocol.Nav{To: link(n + 1), Label: "Next page", When: fmt.Sprintf("to see products %d to %d", n*PageSize+1, min(count, (n+1)*PageSize))})
			}
			if n > 1 {
				st.Nav = append(st.Nav, protocol.Nav{To: link(n - 1), Label: "Previous page"})
			}
			st.Nav = append(st.Nav, protocol.Nav{To: "/cart", Label: "Cart"})
			var md strings.Builder
			fmt.Fprintf(&md, "# Catalog\n\n")
			if q != "" {
				fmt.Fprintf(&md, "Search: %q. ", q)
			}
			fmt.Fprintf(&md, "%d products, page %d of %d.\n\n", count, n, pages)
			for _, p := range products {
				stock := ""
				if !p.InStock {
					stock = " (sold out)"
				}
				fmt.Fprintf(&md, "- [%s](/products/%s): %s%s\n", p.Name, p.Slug, p.Price, stock)
			}
			st.MD = md.String()
			return st, nil
		},
	})
}

// ProductMD is the short Markdown rendering of a product page: what it
// is, its price, and which sizes can be bought. The stock of each size is
// in the product entity.
func ProductMD(prod *Product) string {
	var in, out []string
	for _, v := range prod.Variants {
		if v.Stock > 0 {
			in = append(in, v.Colour+" "+v.Size)
		} else {
			out = append(out, v.Colour+" "+v.Size)
		}
	}
	var md strings.Builder
	fmt.Fprintf(&md, "# %s\n\n%s. %s\n\nIn stock: %s.", prod.Name, prod.Price, prod.Description, strings.Join(in, ", "))
	if len(out) > 0 {
		fmt.Fprintf(&md, " Sold out: %s.", strings.Join(out, ", "))
	}
	return md.String() + "\n"
}

// AddToCart is the input of addToCart.
type AddToCart struct {
	SKU string `json:"sku" description:"the SKU of the colour and size to add, such as TEE-BLK-M" pattern:"^[A-Z0-9-]{3,40}$"`
	Qty int    `json:"qty,omitempty" description:"how many (default 1)" minimum:"1" maximum:"10" default:"1"`
}

// Guard checks that the SKU is a size of this product and in stock.
func (in AddToCart) Guard(r *site.Request, st *site.State) (bool, string) {
	p := st.Entities["product"].(*Product)
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
		Description: "One product: its colours and sizes, each with its own stock",
		View:        page("product.html"),
		Load: func(r *site.Request) (*site.State, error) {
			prod, err := a.store.Product(r.Context(), r.PathValue("slug"))
			if errors.Is(err, ErrNotFound) {
				return nil, site.ErrNotFound
			}
			if err != nil {
				return nil, err
			}
			st := &site.State{Entities: map[string]any{"product": prod},
				Nav: []protocol.Nav{{To: "/", Label: "Catalog"}, {To: "/cart", Label: "Cart"}, {To: "/checkout", Label: "Checkout", When: "the cart is not empty"}}}
			if err := a.common(r, st.Entities); err != nil {
				return nil, err
			}
			st.MD = ProductMD(prod)
			return st, nil
		},
	})
	site.Handle(p, site.Action{
		Name:        "addToCart",
		Description: "Put one colour and size of this product in the cart",
		Expose:      protocol.ExposePublic,
		Effects:     []string{"cart"},
		Guard: site.Guard{Text: "the size is in stock", Check: func(r *site.Request, st *site.State) (bool, string) {
			return st.Entities["product"].(*Product).InStock(), "sold out in every size"
		}},
	}, func(r *site.Request, in AddToCart) (site.Result[CartLine], error) {
		sh := shopperOf(r)
		if sh.User == nil && sh.GuestHash == "" {
			// A guest's first item: the cart is tied to a new cookie.
			plain, hash := secret("g_")
			r.SetCookie(&http.Cookie{Name: guestCookie, Value: plain, Path: "/", HttpOnly: true, Secure: r.TLS != nil,
				SameSite: http.SameSiteLaxMode, MaxAge: int((30 * 24 * time.Hour).Seconds())})
			sh = &shopper{GuestHash: hash}
			r.Caller = site.Caller{ID: "guest:" + hash[:16], Mode: site.AuthCookie, User: sh}
		}
		line, err := a.store.AddToCart(r.Context(), sh.owner(), in.SKU, max(in.Qty, 1))
		if err != nil {
			return site.Result[CartLine]{}, declined(err)
		}
		return site.Result[CartLine]{Output: line,
			Message: fmt.Sprintf("Added %d × %s (%s, %s) to your cart.", max(in.Qty, 1), line.Product, line.Colour, line.Size)}, nil
	})
}

// declined maps the store's "cannot do that now" to the protocol's
// unavailable; other errors stay internal.
func declined(err error) error {
	var u *ErrUnavailable
	if errors.As(err, &u) {
		return site.Unavailable("%s", u.Reason)
	}
	return err
}

// SetQuantity is the input of setQuantity.
type SetQuantity struct {
	SKU string `json:"sku" description:"the SKU of the cart line" pattern:"^[A-Z0-9-]{3,40}$"`
	Qty int    `json:"qty" description:"the new quantity; 0 removes the line" minimum:"0" maximum:"10"`
}

// RemoveFromCart is the input of removeFromCart.
type RemoveFromCart struct {
	SKU string `json:"sku" description:"the SKU of the cart line" pattern:"^[A-Z0-9-]{3,40}$"`
}

func cartNotEmpty(r *site.Request, st *site.State) (bool, string) {
	return st.Entities["cart"].(Cart).Count > 0, "your cart is empty"
}

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

func (a *App) cartState(r *site.Request, title string) (*site.State, error) {
	c, err := a.store.Cart(r.Context(), shopperOf(r).owner())
	if err != nil {
		return nil, err
	}
	st := &site.State{Entities: map[string]any{"cart": c}, MD: cartMD(title, c)}
	if err := a.common(r, st.Entities); err != nil {
		return nil, err
	}
	return st, nil
}

func (a *App) cartPage() {
	p := a.site.Page("/cart", site.PageOptions{
		Description: "The cart: its lines, quantities and total",
		View:        page("cart.html"),
		Load: func(r *site.Request) (*site.State, error) {
			st, err := a.cartState(r, "Cart")
			if err != nil {
				return nil, err
			}
			st.Nav = []protocol.Nav{{To: "/checkout", Label: "Checkout", When: "the cart is not empty"}, {To: "/", Label: "Catalog"}}
			return st, nil
		},
	})
	guard := site.Guard{Text: "the cart is not empty", Check: cartNotEmpty}
	site.Handle(p, site.Action{
		Name: "setQuantity", Description: "Change how many of one cart line to buy; 0 removes it",
		Expose: protocol.ExposePublic, Effects: []string{"cart"}, Guard: guard,
	}, func(r *site.Request, in SetQuantity) (site.Result[site.NoOutput], error) {
		if err := a.store.SetQuantity(r.Context(), shopperOf(r).owner(), in.SKU, in.Qty); err != nil {
			return site.Result[site.NoOutput]{}, declined(err)
		}
		return site.Result[site.NoOutput]{Message: fmt.Sprintf("%s set to %d.", in.SKU, in.Qty)}, nil
	})
	site.Handle(p, site.Action{
		Name: "removeFromCart", Description: "Remove one line from the cart",
		Expose: protocol.ExposePublic, Effects: []string{"cart"}, Guard: guard,
	}, func(r *site.Request, in RemoveFromCart) (site.Result[site.NoOutput], error) {
		if err := a.store.SetQuantity(r.Context(), shopperOf(r).owner(), in.SKU, 0); err != nil {
			return site.Result[site.NoOutput]{}, declined(err)
		}
		return site.Result[site.NoOutput]{Message: fmt.Sprintf("%s removed from your cart.", in.SKU)}, nil
	})
}

// PlaceOrder is the input of placeOrder: nothing but the confirmation.
type PlaceOrder struct{}

// Summary lists what the order will contain, for the person approving.
func (PlaceOrder) Summary(r *site.Request, st *site.State) string {
	c := st.Entities["cart"].(Cart)
	items := make([]string, len(c.Lines))
	for i, l := range c.Lines {
		items[i] = fmt.Sprintf("%d × %s (%s, %s) at %s", l.Qty, l.Product, l.Colour, l.Size, l.UnitPrice)
	}
	return fmt.Sprintf("Place an order for %s. Total: %s.", strings.Join(items, "; "), c.Total)
}

// OrderPlaced is placeOrder's output.
type OrderPlaced struct {
	OrderID int64 `json:"orderId"`
	Total   Money `json:"total"`
}

func (a *App) checkoutPage() {
	p := a.site.Page("/checkout", site.PageOptions{
		Description: "Checkout: review the cart and place the order",
		View:        page("checkout.html"),
		Load: func(r *site.Request) (*site.State, error) {
			st, err := a.cartState(r, "Checkout")
			if err != nil {
				return nil, err
			}
			st.Nav = []protocol.Nav{{To: "/cart", Label: "Change the cart"}}
			if shopperOf(r).User == nil {
				st.Nav = append(st.Nav, protocol.Nav{To: "/login", Label: "Sign in", When: "to place the order"})
			}
			return st, nil
		},
	})
	site.Handle(p, site.Action{
		Name: "placeOrder", Description: "Order everything in the cart and pay on delivery",
		Expose: protocol.ExposeConfirm, Effects: []string{"cart"},
		Guard: site.Guard{Text: "the cart is not empty", Check: cartNotEmpty},
	}, func(r *site.Request, in PlaceOrder) (site.Result[OrderPlaced], error) {
		sh := shopperOf(r)
		c, err := a.store.Cart(r.Context(), sh.owner())
		if err != nil {
			return site.Result[OrderPlaced]{}, err
		}
		id, err := a.store.PlaceOrder(r.Context(), sh.User.ID)
		if err != nil {
			return site.Result[OrderPlaced]{}, declined(err)
		}
		return site.Result[OrderPlaced]{Output: OrderPlaced{OrderID: id, Total: c.Total},
			Message:  fmt.Sprintf("Order %d placed: %s, to pay on delivery.", id, c.Total),
			Redirect: "/orders/" + itoa(id)}, nil
	})
}

func (a *App) ordersPage() {
	a.site.Page("/orders", site.PageOptions{
		Description: "The signed-in shopper's orders, newest first",
		View:        page("orders.html"),
		Load: func(r *site.Request) (*site.State, error) {
			sh := shopperOf(r)
			orders := []Order{}
			if sh.User != nil {
				var err error
				if orders, err = a.store.Orders(r.Context(), sh.User.ID); err != nil {
					return nil, err
				}
			}
			st := &site.State{Entities: map[string]any{"orders": orders}}
			if err := a.common(r, st.Entities); err != nil {
				return nil, err
			}
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
			return st, nil
		},
	})
}

// CancelOrder is the input of cancelOrder: nothing but the confirmation.
type CancelOrder struct{}

// Summary says what cancelling the order means, for the person approving.
func (CancelOrder) Summary(r *site.Request, st *site.State) string {
	o := st.Entities["order"].(*Order)
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
		Load: func(r *site.Request) (*site.State, error) {
			sh := shopperOf(r)
			id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
			if err != nil || sh.User == nil {
				return nil, site.ErrNotFound
			}
			o, err := a.store.Order(r.Context(), sh.User.ID, id)
			if errors.Is(err, ErrNotFound) {
				return nil, site.ErrNotFound
			}
			if err != nil {
				return nil, err
			}
			st := &site.State{Entities: map[string]any{"order": o}, Nav: []protocol.Nav{{To: "/orders", Label: "All orders"}}}
			if err := a.common(r, st.Entities); err != nil {
				return nil, err
			}
			var md strings.Builder
			fmt.Fprintf(&md, "# Order %d\n\nStatus: %s. Placed %s.\n\n", o.ID, o.Status, o.CreatedAt.Format("2 Jan 2006 15:04 UTC"))
			for _, it := range o.Items {
				fmt.Fprintf(&md, "- %d × %s (%s, %s) at %s\n", it.Qty, it.Product, it.Colour, it.Size, it.UnitPrice)
			}
			fmt.Fprintf(&md, "\nTotal: %s\n", o.Total)
			st.MD = md.String()
			return st, nil
		},
	})
	site.Handle(p, site.Action{
		Name: "cancelOrder", Description: "Cancel this order; its items go back in stock",
		Expose: protocol.ExposeConfirm, Effects: []string{"order"},
		Guard: site.Guard{Text: "the order has not shipped yet", Check: func(r *site.Request, st *site.State) (bool, string) {
			o := st.Entities["order"].(*Order)
			return o.Cancellable(), fmt.Sprintf("the order is %s", o.Status)
		}},
	}, func(r *site.Request, in CancelOrder) (site.Result[site.NoOutput], error) {
		id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
		if err := a.store.CancelOrder(r.Context(), shopperOf(r).User.ID, id); err != nil {
			return site.Result[site.NoOutput]{}, declined(err)
		}
		return site.Result[site.NoOutput]{Message: fmt.Sprintf("Order %d cancelled.", id)}, nil
	})
}

// SignIn is the input of signIn.
type SignIn struct {
	Email    string `json:"email" description:"Email" format:"email" maxLength:"254"`
	Password string `json:"password" description:"Password" minLength:"1" maxLength:"200"`
}

func (a *App) loginPage() {
	p := a.site.Page("/login", site.PageOptions{
		Description: "Sign in with an email and a password",
		View:        page("login.html"),
		Load: func(r *site.Request) (*site.State, error) {
			st := &site.State{Entities: map[string]any{}, MD: "# Sign in\n\nThe demo account is " + DemoEmail + " with the password " + DemoPassword + ".\n"}
			if err := a.common(r, st.Entities); err != nil {
				return nil, err
			}
			st.Entities["demo"] = map[string]string{"email": DemoEmail, "password": DemoPassword}
			return st, nil
		},
	})
	limit := ratelimit.Limit{Rate: 10, Per: time.Minute, Burst: 5}
	site.Handle(p, site.Action{
		Name: "signIn", Description: "Sign in; a guest cart is merged into the account's cart",
		Expose: protocol.ExposePublic, Limit: &limit,
	}, func(r *site.Request, in SignIn) (site.Result[site.NoOutput], error) {
		ctx := r.Context()
		u, err := a.store.Authenticate(ctx, in.Email, in.Password)
		if errors.Is(err, ErrBadCredentials) {
			return site.Result[site.NoOutput]{}, site.Unavailable("wrong email or password")
		}
		if err != nil {
			return site.Result[site.NoOutput]{}, err
		}
		sess, err := a.store.CreateSession(ctx, u.ID)
		if err != nil {
			return site.Result[site.NoOutput]{}, err
		}
		sh := shopperOf(r)
		if err := a.store.MergeGuestCart(ctx, sh.GuestHash, u.ID); err != nil {
			return site.Result[site.NoOutput]{}, err
		}
		r.SetCookie(&http.Cookie{Name: sessionCookie, Value: sess, Path: "/", HttpOnly: true, Secure: r.TLS != nil,
			SameSite: http.SameSiteLaxMode, MaxAge: int(SessionTTL.Seconds())})
		if sh.GuestHash != "" {
			r.SetCookie(&http.Cookie{Name: guestCookie, Value: "", Path: "/", MaxAge: -1})
		}
		r.Caller = site.Caller{ID: "sess:" + hashSecret(sess)[:16], Mode: site.AuthCookie, SignedIn: true,
			User: &shopper{User: u, Session: sess}}
		return site.Result[site.NoOutput]{Message: "Signed in as " + u.Name + ".", Redirect: "/account"}, nil
	})
}

// CreateToken is the input of createToken.
type CreateToken struct {
	Label string `json:"label,omitempty" description:"a name to recognise the token by" maxLength:"40"`
}

// NewToken is createToken's output: the token, shown only this once.
type NewToken struct {
	Token string `json:"token"`
}

// RevokeToken is the input of revokeToken.
type RevokeToken struct {
	ID int64 `json:"id" description:"the id of the token to revoke" minimum:"1"`
}

func (a *App) accountPage() {
	p := a.site.Page("/account", site.PageOptions{
		Description: "The signed-in shopper's account and API tokens",
		View:        page("account.html"),
		Load: func(r *site.Request) (*site.State, error) {
			sh := shopperOf(r)
			st := &site.State{Entities: map[string]any{}}
			if err := a.common(r, st.Entities); err != nil {
				return nil, err
			}
			if sh.User == nil {
				st.MD = "# Account\n\nSign in first.\n"
				st.Nav = []protocol.Nav{{To: "/login", Label: "Sign in"}}
				return st, nil
			}
			tokens, err := a.store.Tokens(r.Context(), sh.User.ID)
			if err != nil {
				return nil, err
			}
			st.Entities["profile"] = sh.User
			st.Entities["tokens"] = tokens
			if sh.Session != "" && r.Method == http.MethodGet {
				// A token created from a form is shown on the next view of
				// this page, once.
				flash, err := a.store.PopFlash(r.Context(), sh.Session)
				if err != nil {
					return nil, err
				}
				if flash != "" {
					st.Entities["newToken"] = flash
				}
			}
			st.Nav = []protocol.Nav{{To: "/orders", Label: "Orders"}}
			st.MD = fmt.Sprintf("# Account\n\nSigned in as %s. %d API tokens.\n", sh.User.Name, len(tokens))
			return st, nil
		},
	})
	site.Handle(p, site.Action{Name: "signOut", Description: "Sign out of this session", Expose: protocol.ExposeSession},
		func(r *site.Request, in struct{}) (site.Result[site.NoOutput], error) {
			sh := shopperOf(r)
			if sh.Session != "" {
				if err := a.store.DeleteSession(r.Context(), sh.Session); err != nil {
					return site.Result[site.NoOutput]{}, err
				}
				r.SetCookie(&http.Cookie{Name: sessionCookie, Value: "", Path: "/", MaxAge: -1})
			}
			r.Caller = site.Caller{Mode: site.AuthAnonymous, User: &shopper{}}
			return site.Result[site.NoOutput]{Message: "Signed out.", Redirect: "/"}, nil
		})
	site.Handle(p, site.Action{Name: "createToken", Description: "Create an API token for agents; it is shown only once",
		Expose: protocol.ExposeSession, Effects: []string{"tokens"}},
		func(r *site.Request, in CreateToken) (site.Result[NewToken], error) {
			sh := shopperOf(r)
			label := strings.TrimSpace(in.Label)
			if label == "" {
				label = "token " + time.Now().UTC().Format("2006-01-02 15:04")
			}
			tok, err := a.store.CreateToken(r.Context(), sh.User.ID, label)
			if err != nil {
				return site.Result[NewToken]{}, err
			}
			if sh.Session != "" {
				if err := a.store.SetFlash(r.Context(), sh.Session, tok); err != nil {
					return site.Result[NewToken]{}, err
				}
			}
			return site.Result[NewToken]{Output: NewToken{Token: tok}, Message: "Token created. Copy it now: it is shown only once."}, nil
		})
	site.Handle(p, site.Action{Name: "revokeToken", Description: "Revoke an API token", Expose: protocol.ExposeSession, Effects: []string{"tokens"}},
		func(r *site.Request, in RevokeToken) (site.Result[site.NoOutput], error) {
			err := a.store.RevokeToken(r.Context(), shopperOf(r).User.ID, in.ID)
			if errors.Is(err, ErrNotFound) {
				return site.Result[site.NoOutput]{}, site.Unavailable("you have no token %d", in.ID)
			}
			if err != nil {
				return site.Result[site.NoOutput]{}, err
			}
			return site.Result[site.NoOutput]{Message: fmt.Sprintf("Token %d revoked.", in.ID)}, nil
		})
}

func urlQuery(s string) string { return url.QueryEscape(s) }
