package shop_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	agents "github.com/affordances-go/affordances/client"
	"github.com/affordances-go/affordances/examples/shop/shop"
	"github.com/affordances-go/affordances/examples/shop/shoptest"
)

// The approval page, as the person meets it on a phone: the agent's link
// asks them to sign in, signing in brings them back, the page says in
// plain words what is asked and by which agent, with two large answers,
// and fits the screen; the same on a desktop. Its screenshots at both
// widths are saved (see screenshots).
func TestBrowser_TheApprovalPage(t *testing.T) {
	ctx := browser(t, 120*time.Second)
	s := shoptest.StartWith(t, shop.Options{})
	shots := screenshots(t, "approval")
	shot := func(name string) {
		t.Helper()
		width, err := chromedp.Run(ctx, chromedp.Evaluate[int]("document.documentElement.scrollWidth"))
		view, _ := chromedp.Run(ctx, chromedp.Evaluate[int]("window.innerWidth"))
		if err != nil || width > view {
			t.Errorf("%s: the page is %d px wide on a %d px screen (%v)", name, width, view, err)
		}
		if png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100)); err == nil {
			os.WriteFile(filepath.Join(shots, name+".png"), png, 0o644)
		}
	}

	// The agent, with a labelled token, asks to order.
	demo, _ := s.Store.UserByEmail(context.Background(), shop.DemoEmail)
	token, err := s.Store.CreateGrantedToken(context.Background(), demo, "laptop",
		shop.Grant{Actions: []string{"addToCart", "placeOrder"}, OrderLimit: 5000, DayLimit: 5000})
	if err != nil {
		t.Fatal(err)
	}
	urls := make(chan string, 1)
	agent := agents.New(agents.Options{Token: token, MaxApprovalWait: time.Minute,
		OnApprovalNeeded: func(_ context.Context, a agents.SiteApproval) error { urls <- a.URL; return nil }})
	if _, err := agent.Call(ctx, s.URL+"/products/heavyweight-tee", "addToCart", map[string]any{"sku": "TEE-BLK-M"}); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		// To a new address, saved for next orders: beyond the token's
		// standing approval, and what the person must see.
		res, err := agent.Call(ctx, s.URL+"/checkout", "placeOrder", map[string]any{"saveAddress": true,
			"address": map[string]any{"name": "Ada Lovelace", "street": "1 Queen Street", "postcode": "EC4N 1SR", "city": "London", "country": "GB"}})
		if err == nil && !res.Delta.OK {
			err = res.Delta.Error
		}
		done <- err
	}()
	u := <-urls

	// On a phone, not signed in: the link asks to sign in, and comes back.
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(390, 844), chromedp.Navigate(u), chromedp.WaitVisible(chromedp.CSS("h1"))); err != nil {
		t.Fatal(err)
	}
	if h := waitText(t, ctx, "h1", "Sign in to answer your agent"); h != "Sign in to answer your agent" {
		t.Fatalf("signed out: %q", h)
	}
	shot("approval-signed-out-390")
	err = chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(`main a.button`)),
		chromedp.WaitVisible(chromedp.CSS("#signIn-email")),
		chromedp.SetValue(chromedp.CSS("#signIn-email"), shop.DemoEmail),
		chromedp.SetValue(chromedp.CSS("#signIn-password"), shop.DemoPassword),
		chromedp.Click(chromedp.CSS(`form[data-action="signIn"] button[type=submit]`)),
	)
	if err != nil {
		t.Fatalf("signing in from the approval page: %v", err)
	}
	if h := waitText(t, ctx, "h1", "Place this order?"); h != "Place this order?" {
		t.Fatalf("after signing in: %q (not back on the approval page)", h)
	}
	page, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("main")))
	for _, want := range []string{"Heavyweight Tee (Black, M)", `Asked by the agent with your token "laptop"`, "expires in",
		"Save this address for next orders", "becomes your saved address", "an address other than your saved one", "Deliver to › City"} {
		if !strings.Contains(page, want) {
			t.Errorf("the approval page lacks %q:\n%s", want, page)
		}
	}
	for _, b := range []string{"approve", "decline"} {
		h, err := chromedp.Run(ctx, chromedp.Evaluate[float64](`document.querySelector('button[value="`+b+`"]').getBoundingClientRect().height`))
		if err != nil || h < 44 {
			t.Errorf("the %s button is %.0f px tall on a phone (%v): a thumb needs 44", b, h, err)
		}
	}
	shot("approval-390")
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 900), chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS(`button[value="approve"]`))); err != nil {
		t.Fatal(err)
	}
	shot("approval-1280")

	if s.Orders(t) != 0 {
		t.Fatal("the order ran before the person approved")
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`button[value="approve"]`))); err != nil {
		t.Fatal(err)
	}
	if h := waitText(t, ctx, "h1", "Approved"); h != "Approved" {
		t.Fatalf("after Approve: %q", h)
	}
	if err := <-done; err != nil || s.Orders(t) != 1 {
		t.Fatalf("the agent's call: %v, %d orders", err, s.Orders(t))
	}
}

// The inspector (-dev) fits a phone: its page field keeps its room beside
// Inspect, and the page and its graph stack without widening the screen.
func TestBrowser_TheInspectorOnAPhone(t *testing.T) {
	ctx := browser(t, 60*time.Second)
	s := shoptest.StartWith(t, shop.Options{Dev: true, NoApprovals: true})
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(390, 844),
		chromedp.Navigate(s.URL+"/_affordances/inspector?page=/products/heavyweight-tee"), chromedp.WaitVisible(chromedp.CSS("header input"))); err != nil {
		t.Fatal(err)
	}
	width, _ := chromedp.Run(ctx, chromedp.Evaluate[int]("document.documentElement.scrollWidth"))
	field, _ := chromedp.Run(ctx, chromedp.Evaluate[float64]("document.querySelector('header input').getBoundingClientRect().width"))
	overlap, _ := chromedp.Run(ctx, chromedp.Evaluate[bool](`(() => { const b = document.querySelector('header button').getBoundingClientRect(), w = document.querySelector('header .who').getBoundingClientRect(); return b.bottom > w.top && b.top < w.bottom && b.right > w.left && b.left < w.right; })()`))
	if width > 390 || field < 150 || overlap {
		t.Errorf("at 390 px: page %d px wide, page field %.0f px, Inspect over the caller line: %v", width, field, overlap)
	}
	if who, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("header .who"))); !strings.Contains(who, "anonymous (not signed in)") {
		t.Errorf("who the inspector shows the page as: %q", who)
	}
}
