package shop_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	agents "github.com/affordances-go/affordances/client"
	"github.com/affordances-go/affordances/examples/shop/shop"
	"github.com/affordances-go/affordances/examples/shop/shoptest"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// chromium finds Debian's Chromium. By hand the test skips without it; in
// CI (CI=true) it must run.
func chromium(t *testing.T) string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("Chromium is not installed: .ci/run installs Debian's chromium package")
	}
	t.Skip("Chromium not found: apt-get install chromium to run the browser test")
	return ""
}

// screenshots is the directory a browser test saves its screens in:
// $SHOP_SCREENSHOTS/name when set (CI keeps it as an artifact), else a
// temporary directory that goes with the test unless it failed, when it
// stays for a look and the log names it.
func screenshots(t *testing.T, name string) string {
	t.Helper()
	if root := os.Getenv("SHOP_SCREENSHOTS"); root != "" {
		dir := filepath.Join(root, name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		t.Logf("screenshots in %s", dir)
		return dir
	}
	dir, err := os.MkdirTemp("", "shop-"+name+"-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("screenshots kept in %s", dir)
			return
		}
		os.RemoveAll(dir)
	})
	return dir
}

// browser starts a headless Chromium for the test, with its own profile
// and any extra options, and returns its context, bounded by timeout; it
// stops with the test.
func browser(t *testing.T, timeout time.Duration, extra ...chromedp.ExecAllocatorOption) context.Context {
	exe := chromium(t)
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(exe), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-quic", true),
		chromedp.UserDataDir(t.TempDir()),
	)
	opts = append(opts, extra...)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancelAlloc)
	ctx, cancel := chromedp.NewContext(allocCtx)
	t.Cleanup(cancel)
	ctx, cancelTimeout := context.WithTimeout(ctx, timeout)
	t.Cleanup(cancelTimeout)
	return ctx
}

// TestBrowser_PersonAndAgentShareOneSession drives a real Chromium: a
// person adds a tee with the form, an agent adds another in the same
// session (the browser's cookie, the site's Origin), and the person sees
// both after a reload.
func TestBrowser_PersonAndAgentShareOneSession(t *testing.T) {
	ctx := browser(t, 90*time.Second)
	ts := newTestShop(t)

	err := chromedp.Do(ctx,
		chromedp.Navigate(ts.url+"/products/heavyweight-tee"),
		chromedp.WaitVisible(chromedp.CSS("h1")),
	)
	if err != nil {
		t.Fatalf("opening the product page: %v", err)
	}
	title, err := chromedp.Run(ctx, chromedp.Title())
	if err != nil {
		t.Fatal(err)
	}
	link, err := chromedp.Run(ctx, chromedp.AttributeValue(chromedp.CSS(`link[rel="affordances"]`), "href"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(title, "Heavyweight Tee") || link.Value != "?affordances=1" {
		t.Fatalf("title %q, affordances link %q", title, link.Value)
	}

	// The person adds a black M with the form.
	err = chromedp.Do(ctx,
		chromedp.SetValue(chromedp.CSS("#sku"), "TEE-BLK-M"),
		chromedp.Click(chromedp.CSS("form.buy button[type=submit]")),
	)
	if err != nil {
		t.Fatalf("adding with the form: %v", err)
	}
	if badge := waitText(t, ctx, ".badge", "1"); badge != "1" {
		t.Fatalf("cart badge after the form: %q", badge)
	}

	// An agent acts in the same session: the browser's cookies, the site's
	// Origin.
	got, err := chromedp.Call(ctx, network.GetCookies, network.GetCookiesParams{URLs: []string{ts.url}})
	if err != nil {
		t.Fatal(err)
	}
	var header []string
	for _, c := range got.Cookies {
		header = append(header, c.Name+"="+c.Value)
	}
	if len(header) == 0 {
		t.Fatal("the browser holds no cookie for the shop")
	}
	agent := ts.client(t, "")
	res, body := agent.do("POST", "/products/heavyweight-tee",
		strings.NewReader(`{"action":"addToCart","input":{"sku":"TEE-WHI-L"}}`),
		"Content-Type", "application/vnd.affordances+json", "Origin", ts.url, "Cookie", strings.Join(header, "; "))
	if res.StatusCode != 200 {
		t.Fatalf("agent call in the browser's session: %d %s", res.StatusCode, body)
	}

	// The person reloads the cart and sees both.
	err = chromedp.Do(ctx, chromedp.Navigate(ts.url+"/cart"), chromedp.WaitVisible(chromedp.CSS("table.lines")))
	if err != nil {
		t.Fatalf("reloading the cart: %v", err)
	}
	cart, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("table.lines")))
	if err != nil {
		t.Fatalf("reloading the cart: %v", err)
	}
	// The lines by what they are, not their SKUs (issue 53).
	if !strings.Contains(cart, "Black, M") || !strings.Contains(cart, "White, L") || strings.Contains(cart, "TEE-BLK-M") {
		t.Fatalf("the cart does not show both items:\n%s", cart)
	}
}

// waitText polls the text of the first element matching css until it is
// want, for at most ten seconds (a form post navigates the page).
func waitText(t *testing.T, ctx context.Context, css, want string) string {
	var got string
	for range 100 {
		text, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(css)))
		if err == nil {
			got = strings.TrimSpace(text)
			if got == want {
				return got
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	return got
}

// TestBrowser_PersonApprovesAnAgentsOrderOnTheSite: an agent with a token
// asks to order; the person, signed in in a real Chromium, opens the
// approval page and clicks Approve; the agent's call runs only after the
// click.
func TestBrowser_PersonApprovesAnAgentsOrderOnTheSite(t *testing.T) {
	ctx := browser(t, 90*time.Second)
	s := shoptest.StartWith(t, shop.Options{})

	// The person signs in, in the browser.
	err := chromedp.Do(ctx,
		chromedp.Navigate(s.URL+"/login"),
		chromedp.WaitVisible(chromedp.CSS("#signIn-email")),
		chromedp.SetValue(chromedp.CSS("#signIn-email"), shop.DemoEmail),
		chromedp.SetValue(chromedp.CSS("#signIn-password"), shop.DemoPassword),
		chromedp.Click(chromedp.CSS(`form[data-action="signIn"] button[type=submit]`)),
	)
	if err != nil {
		t.Fatalf("signing in: %v", err)
	}
	if h := waitText(t, ctx, "h1", "Your account"); h != "Your account" {
		t.Fatalf("after signing in: %q", h)
	}

	// The agent, with its token, asks to order.
	urls := make(chan string, 1)
	agent := agents.New(agents.Options{Token: s.Token, MaxApprovalWait: time.Minute,
		OnApprovalNeeded: func(_ context.Context, a agents.SiteApproval) error { urls <- a.URL; return nil }})
	if _, err := agent.Call(ctx, s.URL+"/products/heavyweight-tee", "addToCart", map[string]any{"sku": "TEE-BLK-M"}); err != nil {
		t.Fatal(err)
	}
	type outcome struct {
		res *agents.Result
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		res, err := agent.Call(ctx, s.URL+"/checkout", "placeOrder", nil)
		done <- outcome{res, err}
	}()
	u := <-urls

	// The person opens the page: it shows the order; nothing ran yet.
	err = chromedp.Do(ctx, chromedp.Navigate(u), chromedp.WaitVisible(chromedp.CSS(`button[value="approve"]`)))
	if err != nil {
		t.Fatalf("opening the approval page: %v", err)
	}
	page, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("main")))
	if err != nil || !strings.Contains(page, "Heavyweight Tee (Black, M)") {
		t.Fatalf("the approval page: %v\n%s", err, page)
	}
	time.Sleep(1500 * time.Millisecond) // the agent polls in the meantime
	if s.Orders(t) != 0 {
		t.Fatal("the order ran before the person approved")
	}
	select {
	case o := <-done:
		t.Fatalf("the agent's call ended before the approval: %+v %v", o.res, o.err)
	default:
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`button[value="approve"]`))); err != nil {
		t.Fatalf("clicking Approve: %v", err)
	}
	if h := waitText(t, ctx, "h1", "Approved"); h != "Approved" {
		t.Fatalf("after the click: %q", h)
	}
	o := <-done
	if o.err != nil || !o.res.Delta.OK || s.Orders(t) != 1 {
		t.Fatalf("after the click: %+v %v, %d orders", o.res, o.err, s.Orders(t))
	}
}
