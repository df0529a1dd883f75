package shop

import (
	"errors"
	"net/url"
	"time"

	"github.com/affordances-go/affordances/site"
)

// publicPageTTL is how long a shared cache (nginx's, in docs/deploy.md)
// may keep the catalog's and the products' HTML for visitors without
// credentials: what they show of the stock is at most this old.
const publicPageTTL = 5 * time.Second

// PageSize is how many products a catalog page lists.
const PageSize = 8

// The entities of the shop's pages, each with its Go type. Loaders set
// them and guards and summaries read them through these keys, so both
// sides agree on the type at compile time.
var (
	catalogKey     = site.NewKey[Catalog]("catalog")
	productKey     = site.NewKey[*Product]("product")
	cartKey        = site.NewKey[Cart]("cart")        // the whole cart, on the cart and checkout pages
	cartSummaryKey = site.NewKey[CartSummary]("cart") // the header's summary, on every other page
	accountKey     = site.NewKey[Account]("account")
	ordersKey      = site.NewKey[[]Order]("orders")
	orderKey       = site.NewKey[*Order]("order")
	profileKey     = site.NewKey[*User]("profile")
	passkeysKey    = site.NewKey[PasskeyList]("passkeys")
	demoKey        = site.NewKey[map[string]string]("demo")
)

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

func (a *App) register() {
	a.catalogPage()
	a.productPage()
	a.cartPage()
	a.checkoutPage()
	a.ordersPage()
	a.orderPage()
	a.loginPage()
	a.signUpPage()
	a.accountPage()
}

// header is what every page's header shows, entity by entity: the cart's
// summary and the account. A page that shows the whole cart takes
// accountHeader instead. Every page lists them in its Entities beside its
// own (site.Group or site.Entity), so a call loads them only when a guard
// or its delta reads them.
func (a *App) header() []site.EntityLoader {
	return []site.EntityLoader{site.Entity(cartSummaryKey, a.cartSummary), site.Entity(accountKey, accountOf)}
}

// accountHeader is the header of a page that shows the whole cart.
func accountHeader() []site.EntityLoader {
	return []site.EntityLoader{site.Entity(accountKey, accountOf)}
}

// cartSummary is the header's view of the shopper's cart.
func (a *App) cartSummary(r *site.Request) (CartSummary, error) {
	c, err := a.store.Cart(r.Context(), shopperOf(r).owner())
	return CartSummary{Count: c.Count, Total: c.Total}, err
}

// accountOf is who is signed in, as the header shows it.
func accountOf(r *site.Request) (Account, error) {
	sh := shopperOf(r)
	acc := Account{SignedIn: sh.User != nil}
	if sh.User != nil {
		acc.Name = sh.User.Name
	}
	return acc, nil
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

func urlQuery(s string) string { return url.QueryEscape(s) }
