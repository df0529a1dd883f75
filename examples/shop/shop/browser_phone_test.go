package shop_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/affordances-go/affordances/examples/shop/shop"
)

// TestBrowser_AShopperOnAPhone shops in a real Chromium 390 px wide: the
// message after adding to the cart, the chosen variant kept, the address
// form with a field-level error, the confirmation, the message after the
// order and the address on the order page. Every page fits the screen
// (the document is never wider than the viewport), and each is saved as
// a screenshot (see screenshots).
func TestBrowser_AShopperOnAPhone(t *testing.T) {
	ctx := browser(t, 120*time.Second)
	ts := newTestShop(t)
	shots := screenshots(t, "phone")

	if err := chromedp.Do(ctx, chromedp.EmulateViewport(390, 844)); err != nil {
		t.Fatal(err)
	}

	// fits checks that the page on screen is not wider than the phone,
	// and saves its screenshot.
	fits := func(name string) {
		t.Helper()
		width, err := chromedp.Run(ctx, chromedp.Evaluate[int]("document.documentElement.scrollWidth"))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		view, _ := chromedp.Run(ctx, chromedp.Evaluate[int]("window.innerWidth"))
		if width > view {
			t.Errorf("%s: the page is %d px wide on a %d px screen", name, width, view)
		}
		png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		if err == nil {
			os.WriteFile(filepath.Join(shots, name+".png"), png, 0o644)
		}
	}
	open := func(name, path string) {
		t.Helper()
		if err := chromedp.Do(ctx, chromedp.Navigate(ts.url+path), chromedp.WaitVisible(chromedp.CSS("h1"))); err != nil {
			t.Fatalf("opening %s: %v", path, err)
		}
		fits(name)
	}
	text := func(css string) string {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(css)))
		if err != nil {
			t.Fatalf("reading %s: %v", css, err)
		}
		return strings.TrimSpace(s)
	}

	open("catalog", "/")
	open("login", "/login")
	err := chromedp.Do(ctx,
		chromedp.SetValue(chromedp.CSS("#signIn-email"), shop.DemoEmail),
		chromedp.SetValue(chromedp.CSS("#signIn-password"), shop.DemoPassword),
		chromedp.Click(chromedp.CSS(`form[data-action="signIn"] button[type=submit]`)),
	)
	if err != nil {
		t.Fatal(err)
	}
	if h := waitText(t, ctx, "h1", "Your account"); h != "Your account" {
		t.Fatalf("after signing in: %q", h)
	}
	fits("account")

	// A colour link shows that colour and picks its first size in stock,
	// without JavaScript.
	open("product", "/products/heavyweight-tee")
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`.colours a[href="?colour=Olive"]`)), chromedp.WaitVisible(chromedp.CSS(`.colours a[aria-current="true"]`))); err != nil {
		t.Fatal(err)
	}
	if src, _ := chromedp.Run(ctx, chromedp.AttributeValue(chromedp.CSS("img.hero"), "src")); !strings.HasSuffix(src.Value, "/Olive.svg") {
		t.Errorf("the colour link did not change the picture: %q", src.Value)
	}
	if v, _ := chromedp.Run(ctx, chromedp.Value(chromedp.CSS("#sku"))); v != "TEE-OLI-S" {
		t.Errorf("the colour link did not pick its first size: %q", v)
	}
	fits("product-olive")

	// Add two white L tees: a message, and the picker keeps white L.
	err = chromedp.Do(ctx,
		chromedp.SetValue(chromedp.CSS("#sku"), "TEE-WHI-L"),
		chromedp.SetValue(chromedp.CSS("#qty"), "2"),
		chromedp.Click(chromedp.CSS("form.buy button[type=submit]")),
	)
	if err != nil {
		t.Fatal(err)
	}
	if got := waitText(t, ctx, ".flash", "Added 2 × Heavyweight Tee (White, L) to your cart."); got != "Added 2 × Heavyweight Tee (White, L) to your cart." {
		t.Fatalf("message after adding: %q", got)
	}
	fits("product-added")
	if v, _ := chromedp.Run(ctx, chromedp.Value(chromedp.CSS("#sku"))); v != "TEE-WHI-L" {
		t.Errorf("the picker forgot the variant: %q", v)
	}
	if src, _ := chromedp.Run(ctx, chromedp.AttributeValue(chromedp.CSS("img.hero"), "src")); !strings.HasSuffix(src.Value, "/White.svg") {
		t.Errorf("the picture is not of the chosen colour: %q", src.Value)
	}
	if loaded, _ := chromedp.Run(ctx, chromedp.Evaluate[bool]("document.querySelector('img.hero').naturalWidth > 0")); !loaded {
		t.Error("the product picture did not load")
	}
	// Once: the message is gone after a reload.
	open("product-again", "/products/heavyweight-tee")
	if n, _ := chromedp.Run(ctx, chromedp.Evaluate[int]("document.querySelectorAll('.flash').length")); n != 0 {
		t.Error("the message shows twice")
	}
	open("cart", "/cart")

	// Checkout: the saved address is filled in; a bad postcode is named
	// next to its field, the rest is kept.
	open("checkout", "/checkout")
	if v, _ := chromedp.Run(ctx, chromedp.Value(chromedp.CSS(`[name="address.street"]`))); v != "12 Rue des Archives" {
		t.Fatalf("the saved address is not filled in: %q", v)
	}
	err = chromedp.Do(ctx,
		chromedp.SetValue(chromedp.CSS(`[name="address.street"]`), "Via Roma 1"),
		chromedp.SetValue(chromedp.CSS(`[name="address.postcode"]`), "!!"),
		chromedp.SetValue(chromedp.CSS(`[name="address.city"]`), "Roma"),
		chromedp.SetValue(chromedp.CSS(`[name="address.country"]`), "IT"),
		chromedp.Click(chromedp.CSS(`form.checkout button[type=submit]`)),
	)
	if err != nil {
		t.Fatal(err)
	}
	if got := waitText(t, ctx, ".address .field-error", "must look like 75004"); got != "must look like 75004" {
		t.Fatalf("postcode error: %q", got)
	}
	fits("checkout-error")
	if v, _ := chromedp.Run(ctx, chromedp.Value(chromedp.CSS(`[name="address.street"]`))); v != "Via Roma 1" {
		t.Errorf("the form lost what was typed: %q", v)
	}
	err = chromedp.Do(ctx,
		chromedp.SetValue(chromedp.CSS(`[name="address.postcode"]`), "00184"),
		chromedp.Click(chromedp.CSS(`#saveAddress`)),
		chromedp.Click(chromedp.CSS(`form.checkout button[type=submit]`)),
	)
	if err != nil {
		t.Fatal(err)
	}
	// The checkout's button is the confirmation of what the page shows:
	// one step, no second page.
	if h := waitText(t, ctx, "h1", "Order 1"); h != "Order 1" {
		t.Fatalf("after Place order: %q (a second confirmation?)", h)
	}
	msg := waitText(t, ctx, ".flash", "")
	for i := 0; i < 50 && !strings.Contains(msg, "thank you"); i++ {
		time.Sleep(100 * time.Millisecond)
		msg, _ = chromedp.Run(ctx, chromedp.Text(chromedp.CSS(".flash")))
	}
	if !strings.Contains(msg, "placed, thank you") {
		t.Fatalf("message after the order: %q", msg)
	}
	fits("order")
	if a := text("address"); !strings.Contains(a, "Via Roma 1") || !strings.Contains(a, "00184 Roma") {
		t.Errorf("the order page's address: %q", a)
	}
	open("orders", "/orders")
	if items := text("table.lines tbody"); !strings.Contains(items, "2 × Heavyweight Tee (White, L)") {
		t.Errorf("the orders list does not show the order's items: %q", items)
	}
	open("signup", "/signup")
	open("not-found", "/no-such-page")
	if b, _ := chromedp.Run(ctx, chromedp.Evaluate[int]("document.querySelectorAll('.top .search').length")); b != 1 {
		t.Error("the 404 page lost the site's header")
	}
}
