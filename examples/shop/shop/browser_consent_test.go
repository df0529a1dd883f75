package shop_test

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/webauthn"
	"github.com/chromedp/chromedp"

	"github.com/affordances-go/affordances/examples/shop/shop"
	"github.com/affordances-go/affordances/examples/shop/shoptest"
)

// TestBrowser_NoOrderWithoutThePersonsPasskey drives Debian's Chromium as
// an agent in the person's signed-in browser (CDP control, the person's
// passkey enrolled on a virtual authenticator, the person's finger not on
// it): it presses the site's own buttons (Place order with its own
// address saved for next time, Cancel order and its confirmation) and
// posts their forms past the page's script. No order is placed or
// cancelled and the saved address stays the person's. With the person's
// verification each happens exactly once. A shopper without a passkey
// orders with one press, as documented.
func TestBrowser_NoOrderWithoutThePersonsPasskey(t *testing.T) {
	ctx := browser(t, 150*time.Second)
	s := shoptest.StartWith(t, shop.Options{})
	base := s.LocalURL
	bg := context.Background()
	demo, err := s.Store.UserByEmail(bg, shop.DemoEmail)
	if err != nil {
		t.Fatal(err)
	}
	saved := func() string {
		a, err := s.Store.SavedAddress(bg, demo)
		if err != nil || a == nil {
			t.Fatalf("the saved address: %v %v", a, err)
		}
		return a.Street
	}
	status := func(id int64) string {
		o, err := s.Store.Order(bg, demo, id)
		if err != nil {
			t.Fatal(err)
		}
		return o.Status
	}
	orders := func() []shop.Order {
		os, err := s.Store.Orders(bg, demo)
		if err != nil {
			t.Fatal(err)
		}
		return os
	}
	personsStreet := saved()

	verify := personWithPasskey(t, ctx, base, func() int {
		cs, err := s.Store.Passkeys().Credentials(bg, "user:"+strconv.FormatInt(demo, 10))
		if err != nil {
			t.Fatal(err)
		}
		return len(cs)
	})
	addToCart := func() {
		t.Helper()
		err := chromedp.Do(ctx, chromedp.Navigate(base+"/products/heavyweight-tee"),
			chromedp.WaitVisible(chromedp.CSS("#sku")),
			chromedp.SetValue(chromedp.CSS("#sku"), "TEE-BLK-M"))
		if err != nil {
			t.Fatal(err)
		}
		press(t, ctx, "form.buy button[type=submit]")
		waitFor(t, "the tee in the cart", func() bool {
			c, err := s.Store.Cart(bg, shop.CartOwner{UserID: demo})
			return err == nil && len(c.Lines) > 0
		})
		// The browser follows the form's answer to the page that says so:
		// a navigation begun before it ends would be aborted.
		if err := chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(".flash"))); err != nil {
			t.Fatal(err)
		}
	}
	// pastTheScript posts the page's first form matching css as a script
	// can, without the submit event the presence script listens to.
	pastTheScript := func(css string) {
		t.Helper()
		leavePage(t, ctx, "posting "+css+" past the script",
			`(function(){var f=document.querySelector(`+strconv.Quote(css)+`);if(!f)return false;HTMLFormElement.prototype.submit.call(f);return true})()`)
	}

	// The agent's turn: the person's finger is not on the phone.
	addToCart()
	verify(false)
	fillCheckout := func(street string) {
		t.Helper()
		err := chromedp.Do(ctx, chromedp.Navigate(base+"/checkout"),
			chromedp.WaitVisible(chromedp.CSS(`form.checkout input[name="address.street"]`)),
			chromedp.SetValue(chromedp.CSS(`form.checkout input[name="address.street"]`), street),
			chromedp.Click(chromedp.CSS(`#saveAddress`)))
		if err != nil {
			t.Fatal(err)
		}
	}
	fillCheckout("1 Agent Way")
	press(t, ctx, `form.checkout button[type=submit]`)
	presenceRefused(t, ctx)
	fillCheckout("1 Agent Way")
	pastTheScript("form.checkout")
	if n := len(orders()); n != 0 || saved() != personsStreet {
		t.Fatalf("the agent pressing Place order: %d orders, saved address %q", n, saved())
	}

	// The person, with their finger: one order, to the address they typed.
	verify(true)
	fillCheckout("5 Rue du Person")
	press(t, ctx, `form.checkout button[type=submit]`)
	waitFor(t, "the person's order", func() bool { return len(orders()) == 1 })
	// The order's page, loaded: the next navigation must not abort it.
	waitFor(t, "the order's page", func() bool {
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`location.pathname.startsWith("/orders/") && document.readyState === "complete"`))
		return err == nil && ok
	})
	os := orders()
	if len(os) != 1 || saved() != "5 Rue du Person" {
		t.Fatalf("the person's order: %d orders, saved address %q", len(os), saved())
	}
	id := os[0].ID

	// The agent presses Cancel order, then Confirm on the confirmation,
	// then posts the confirmation past the script.
	verify(false)
	order := base + "/orders/" + strconv.FormatInt(id, 10)
	cancel := func() {
		t.Helper()
		err := chromedp.Do(ctx, chromedp.Navigate(order), chromedp.WaitVisible(chromedp.CSS(`main form button[type=submit]`)))
		if err != nil {
			t.Fatal(err)
		}
		press(t, ctx, `main form button[type=submit]`)
		// The confirmation page, whose Confirm asks for the passkey (the
		// order page's Cancel order only asks to confirm).
		waitFor(t, "the confirmation of a cancellation, asking the passkey", func() bool {
			label, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`(document.querySelector("main form[data-presence] button[type=submit]")||{}).textContent||""`))
			return strings.TrimSpace(label) == "Confirm"
		})
	}
	cancel()
	press(t, ctx, `main form[data-presence] button[type=submit]`)
	presenceRefused(t, ctx)
	cancel()
	pastTheScript("main form[data-presence]")
	if st := status(id); st != "placed" {
		t.Fatalf("the agent pressing Cancel order: the order is %s", st)
	}

	verify(true)
	cancel()
	press(t, ctx, `main form[data-presence] button[type=submit]`)
	for i := 0; i < 300 && status(id) != "cancelled"; i++ {
		time.Sleep(100 * time.Millisecond)
	}
	if status(id) != "cancelled" {
		page, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`location.href + "\n" + document.body.innerText`))
		t.Fatalf("the person's cancellation: did not happen; the page:\n%s", page)
	}
	if n := len(orders()); n != 1 {
		t.Fatalf("after the cancellation: %d orders", n)
	}

	// Without a passkey, the other shopper orders with one press, and an
	// agent in the browser could too: what docs/security.md says.
	other := browser(t, 60*time.Second)
	otherID, err := s.Store.UserByEmail(bg, shop.OtherEmail)
	if err != nil {
		t.Fatal(err)
	}
	err = chromedp.Do(other, chromedp.Navigate(base+"/login"),
		chromedp.WaitVisible(chromedp.CSS("#signIn-email")),
		chromedp.SetValue(chromedp.CSS("#signIn-email"), shop.OtherEmail),
		chromedp.SetValue(chromedp.CSS("#signIn-password"), shop.OtherPassword))
	if err != nil {
		t.Fatal(err)
	}
	press(t, other, `form[data-action="signIn"] button[type=submit]`)
	waitText(t, other, "h1", "Your account")
	err = chromedp.Do(other, chromedp.Navigate(base+"/products/heavyweight-tee"),
		chromedp.WaitVisible(chromedp.CSS("#sku")),
		chromedp.SetValue(chromedp.CSS("#sku"), "TEE-BLK-M"))
	if err != nil {
		t.Fatal(err)
	}
	pressAndLand(t, other, "form.buy button[type=submit]")
	waitFor(t, "the other shopper's cart", func() bool {
		c, err := s.Store.Cart(bg, shop.CartOwner{UserID: otherID})
		return err == nil && len(c.Lines) > 0
	})
	err = chromedp.Do(other, chromedp.Navigate(base+"/checkout"), chromedp.WaitVisible(chromedp.CSS(`form.checkout button[type=submit]`)))
	if err != nil {
		t.Fatal(err)
	}
	press(t, other, `form.checkout button[type=submit]`)
	waitFor(t, "the order without a passkey", func() bool {
		os, err := s.Store.Orders(bg, otherID)
		return err == nil && len(os) == 1
	})
}

// press clicks the element css names in ctx's page. A press that sends
// the page elsewhere can lose the race with the click's last step (the
// node it clicked is gone): that error is no failure, and the caller
// checks what the press did.
func press(t *testing.T, ctx context.Context, css string) {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(css))); err != nil && !strings.Contains(err.Error(), "Could not find node") {
		t.Fatal(err)
	}
}

// presenceRefused waits until ctx's page says the person's passkey did
// not confirm (the presence script's error): the press asked for the
// person, who did not verify, and nothing was posted.
func presenceRefused(t *testing.T, ctx context.Context) {
	t.Helper()
	waitFor(t, "the script says the passkey did not confirm", func() bool {
		text, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`(document.querySelector(".presence-error")||{}).textContent||""`))
		return strings.Contains(text, "did not confirm")
	})
}

// pressAndLand presses the button css names, which posts its form, and
// waits for the page the browser lands on to load, as leavePage does: the
// store has the form's effect before the browser has followed its answer.
func pressAndLand(t *testing.T, ctx context.Context, css string) {
	t.Helper()
	leaving(t, ctx)
	press(t, ctx, css)
	landed(t, ctx, "pressing "+css)
}

// leavePage runs js in ctx's page, an expression that sends the page
// elsewhere (a form's post) and is true when it did, and waits for the
// page the browser lands on to load.
func leavePage(t *testing.T, ctx context.Context, what, js string) {
	t.Helper()
	leaving(t, ctx)
	ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](js))
	if err != nil || !ok {
		t.Fatalf("%s: %v %v", what, ok, err)
	}
	landed(t, ctx, what)
}

// leaving marks ctx's page, so that landed knows when another has loaded.
func leaving(t *testing.T, ctx context.Context) {
	t.Helper()
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`window.leavingThisPage=true`)); err != nil {
		t.Fatal(err)
	}
}

// landed waits until ctx's page is no longer the one leaving marked and
// has loaded: a navigation begun while a form's post is still out would
// abort one of the two (net::ERR_ABORTED, in CI, when a fixed wait or a
// check of the database alone was all a test waited for).
func landed(t *testing.T, ctx context.Context, what string) {
	t.Helper()
	waitFor(t, what+": the page it lands on", func() bool {
		loaded, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`!window.leavingThisPage && document.readyState === "complete"`))
		return err == nil && loaded
	})
}

// passkeyListed waits until ctx's page is the account page that lists the
// passkey just added, fully loaded. The passkey is in the database before
// the browser has followed the form's answer: a navigation begun in
// between aborts one of the two (net::ERR_ABORTED, once in CI).
func passkeyListed(t *testing.T, ctx context.Context) {
	t.Helper()
	waitFor(t, "the account page listing the passkey", func() bool {
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.readyState === "complete" && !!document.querySelector("ul.passkeys li")`))
		return err == nil && ok
	})
}

// personWithPasskey signs the demo shopper in, in ctx's browser, and
// enrols a passkey on a virtual authenticator that verifies the user; it
// returns the switch of the person's verification (their finger on the
// phone, or not).
func personWithPasskey(t *testing.T, ctx context.Context, base string, passkeys func() int) func(bool) {
	t.Helper()
	if _, err := chromedp.Call(ctx, webauthn.Enable, webauthn.EnableParams{}); err != nil {
		t.Fatalf("WebAuthn over CDP: %v", err)
	}
	added, err := chromedp.Call(ctx, webauthn.AddVirtualAuthenticator, webauthn.AddVirtualAuthenticatorParams{Options: &webauthn.VirtualAuthenticatorOptions{
		Protocol: "ctap2", Ctap2version: "ctap2_1", Transport: "internal", HasResidentKey: true, HasUserVerification: true,
		IsUserVerified: true, AutomaticPresenceSimulation: true}})
	if err != nil {
		t.Fatal(err)
	}
	err = chromedp.Do(ctx,
		chromedp.Navigate(base+"/login"),
		chromedp.WaitVisible(chromedp.CSS("#signIn-email")),
		chromedp.SetValue(chromedp.CSS("#signIn-email"), shop.DemoEmail),
		chromedp.SetValue(chromedp.CSS("#signIn-password"), shop.DemoPassword),
	)
	if err != nil {
		t.Fatalf("signing in: %v", err)
	}
	press(t, ctx, `form[data-action="signIn"] button[type=submit]`)
	if h := waitText(t, ctx, "h1", "Your account"); h != "Your account" {
		t.Fatalf("after signing in: %q", h)
	}
	err = chromedp.Do(ctx,
		chromedp.WaitVisible(chromedp.CSS("#addPasskey-password")),
		chromedp.SetValue(chromedp.CSS("#addPasskey-name"), "my phone"),
		chromedp.SetValue(chromedp.CSS("#addPasskey-password"), shop.DemoPassword),
	)
	if err != nil {
		t.Fatalf("adding a passkey: %v", err)
	}
	press(t, ctx, `form[data-action="addPasskey"] button[type=submit]`)
	waitFor(t, "the passkey is added", func() bool { return passkeys() == 1 })
	passkeyListed(t, ctx)
	return func(ok bool) {
		t.Helper()
		if _, err := chromedp.Call(ctx, webauthn.SetUserVerified, webauthn.SetUserVerifiedParams{AuthenticatorID: added.AuthenticatorID, IsUserVerified: ok}); err != nil {
			t.Fatal(err)
		}
	}
}
