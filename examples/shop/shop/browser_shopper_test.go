package shop_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/webauthn"
	"github.com/chromedp/chromedp"

	"github.com/affordances-go/affordances/examples/shop/shop"
	"github.com/affordances-go/affordances/examples/shop/shoptest"
	"github.com/affordances-go/affordances/internal/route"
	"github.com/affordances-go/affordances/site/sitetest"
)

// TestBrowser_NoSilentFailureNoDeadEnd walks, as a shopper in Debian's
// Chromium at 1280 and at 390 px, the failures and dead ends a newcomer
// met (issue 53), and asserts what the shopper reads: a refused token
// form says why beside the field and keeps what was typed and ticked;
// nothing ticked makes no token; a first passkey with a wrong password
// says so beside the password, keeps the name and leaves no passkey in
// the browser; removing the last passkey says what changes; the account
// page lists the agent's request waiting; the approval page of another
// account leads, through signing out, to the right one and back; after
// the decision and the agent's use the page says what happened and links
// the order. Each step's screen is saved as a PNG (see screenshots).
func TestBrowser_NoSilentFailureNoDeadEnd(t *testing.T) {
	dir := screenshots(t, "shopper")
	for _, width := range []int{1280, 390} {
		t.Run(strconv.Itoa(width)+"px", func(t *testing.T) { walkShopper(t, width, dir) })
	}
}

func walkShopper(t *testing.T, width int, dir string) {
	ctx := browser(t, 240*time.Second)
	s := shoptest.StartWith(t, shop.Options{})
	base := s.LocalURL
	bg := context.Background()
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(int64(width), 900)); err != nil {
		t.Fatal(err)
	}
	demo, err := s.Store.UserByEmail(bg, shop.DemoEmail)
	if err != nil {
		t.Fatal(err)
	}
	account := "user:" + strconv.FormatInt(demo, 10)
	shot := func(name string) {
		t.Helper()
		if w, _ := chromedp.Run(ctx, chromedp.Evaluate[int]("document.documentElement.scrollWidth")); w > width {
			t.Errorf("%s: the page is %d px wide on a %d px screen", name, w, width)
		}
		if png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100)); err == nil {
			os.WriteFile(filepath.Join(dir, fmt.Sprintf("%d-%s.png", width, name)), png, 0o644)
		}
	}
	eval := func(js string) string {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.Evaluate[string](js))
		if err != nil {
			t.Fatalf("%s: %v", js, err)
		}
		return v
	}
	// reads waits until the text of the first element css matches holds
	// want, and returns it.
	reads := func(css, want string) string {
		t.Helper()
		var got string
		waitFor(t, fmt.Sprintf("%s reads %q", css, want), func() bool {
			// A page still navigating answers an error: read it again.
			got, _ = chromedp.Run(ctx, chromedp.Evaluate[string](`(document.querySelector(`+strconv.Quote(css)+`)||{}).textContent||""`))
			return strings.Contains(got, want)
		})
		return got
	}
	open := func(path, h1 string) {
		t.Helper()
		if err := chromedp.Do(ctx, chromedp.Navigate(base+path), chromedp.WaitVisible(chromedp.CSS("h1"))); err != nil {
			t.Fatalf("opening %s: %v", path, err)
		}
		reads("h1", h1)
	}
	value := func(css string) string {
		return eval(`(document.querySelector(` + strconv.Quote(css) + `)||{}).value||""`)
	}
	signIn := func(email, password string) {
		t.Helper()
		err := chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS("#signIn-email")),
			chromedp.SetValue(chromedp.CSS("#signIn-email"), email),
			chromedp.SetValue(chromedp.CSS("#signIn-password"), password))
		if err != nil {
			t.Fatal(err)
		}
		press(t, ctx, `form[data-action="signIn"] button[type=submit]`)
	}
	tokens := func() int {
		ts, err := s.Store.Tokens(bg, demo)
		if err != nil {
			t.Fatal(err)
		}
		return len(ts)
	}
	passkeys := func() int {
		cs, err := s.Store.Passkeys().Credentials(bg, account)
		if err != nil {
			t.Fatal(err)
		}
		return len(cs)
	}

	open("/login", "Sign in")
	signIn(shop.DemoEmail, shop.DemoPassword)
	reads("h1", "Your account")
	before := tokens()

	// 1. A daily cap without an amount per order: the message beside the
	// field, everything typed and ticked still there.
	// The page the sign-in led to has settled before its fields are filled.
	err = chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS("#createToken-label")),
		chromedp.SetValue(chromedp.CSS("#createToken-label"), "weekly shop"),
		chromedp.Click(chromedp.CSS(`form[data-action="createToken"] input[value=addToCart]`)),
		chromedp.Click(chromedp.CSS(`form[data-action="createToken"] input[value=placeOrder]`)),
		chromedp.SetValue(chromedp.CSS("#createToken-perDay"), "60"))
	if err != nil {
		t.Fatal(err)
	}
	press(t, ctx, `form[data-action="createToken"] button[type=submit]`)
	reads(`#createToken-perCall + .field-error`, "amount per call")
	if v := value("#createToken-label"); v != "weekly shop" {
		t.Errorf("the label after the refusal: %q", v)
	}
	if v := value("#createToken-perDay"); v != "60" {
		t.Errorf("the daily amount after the refusal: %q", v)
	}
	if eval(`String(document.querySelector('form[data-action="createToken"] input[value=placeOrder]').checked)`) != "true" {
		t.Error("placeOrder is no longer ticked after the refusal")
	}
	shot("1-token-refused")

	// 5. Nothing ticked under "only what you tick" makes no token.
	open("/account", "Your account")
	if err := chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS("#createToken-label")),
		chromedp.SetValue(chromedp.CSS("#createToken-label"), "all of it?")); err != nil {
		t.Fatal(err)
	}
	press(t, ctx, `form[data-action="createToken"] button[type=submit]`)
	reads(`form[data-action="createToken"] fieldset .field-error`, "tick at least one")
	if tokens() != before {
		t.Fatalf("a refused form made a token")
	}
	shot("5-nothing-ticked")

	// 3. The first passkey with a wrong password: the message beside the
	// password, the name kept, and no passkey left in the browser.
	if _, err := chromedp.Call(ctx, webauthn.Enable, webauthn.EnableParams{}); err != nil {
		t.Fatalf("WebAuthn over CDP: %v", err)
	}
	auth, err := chromedp.Call(ctx, webauthn.AddVirtualAuthenticator, webauthn.AddVirtualAuthenticatorParams{Options: &webauthn.VirtualAuthenticatorOptions{
		Protocol: "ctap2", Ctap2version: "ctap2_1", Transport: "internal", HasResidentKey: true, HasUserVerification: true,
		IsUserVerified: true, AutomaticPresenceSimulation: true}})
	if err != nil {
		t.Fatal(err)
	}
	inBrowser := func() int {
		r, err := chromedp.Call(ctx, webauthn.GetCredentials, webauthn.GetCredentialsParams(auth))
		if err != nil {
			t.Fatal(err)
		}
		return len(r.Credentials)
	}
	open("/account", "Your account")
	err = chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS("#addPasskey-name")),
		chromedp.SetValue(chromedp.CSS("#addPasskey-name"), "my phone"),
		chromedp.SetValue(chromedp.CSS("#addPasskey-password"), "not my password"))
	if err != nil {
		t.Fatal(err)
	}
	press(t, ctx, `form[data-action="addPasskey"] button[type=submit]`)
	reads(`#addPasskey-password + .field-error`, "not your password")
	if v := value("#addPasskey-name"); v != "my phone" {
		t.Errorf("the passkey's name after the refusal: %q", v)
	}
	if n := inBrowser(); n != 0 || passkeys() != 0 {
		t.Fatalf("a refused password left %d passkeys in the browser, %d on the site", n, passkeys())
	}
	shot("3-passkey-wrong-password")
	if err := chromedp.Do(ctx, chromedp.SetValue(chromedp.CSS("#addPasskey-password"), shop.DemoPassword)); err != nil {
		t.Fatal(err)
	}
	press(t, ctx, `form[data-action="addPasskey"] button[type=submit]`)
	waitFor(t, "the passkey is added", func() bool { return passkeys() == 1 && inBrowser() == 1 })

	// 6. Removing the last passkey says what changes.
	reads("h1", "Your account")
	press(t, ctx, `ul.passkeys form button[type=submit]`)
	reads(".flash", "You have no passkey now")
	if passkeys() != 0 {
		t.Fatal("the passkey is still there")
	}
	shot("6-last-passkey-removed")

	// 7. An agent asks for an order: the account page lists it, waiting.
	agent := grantedAgent(t, s, shop.Grant{Actions: []string{"addToCart", "placeOrder"}})
	addTee(t, agent, 1)
	u := agent.Call("/checkout", "placeOrder", map[string]any{}).Delta().ApprovalURL
	if u == "" {
		t.Fatal("no approval link")
	}
	open("/account", "Your account")
	reads("#requests + ul.requests li.waiting", "waiting for you")
	shot("7-requests-waiting")

	// 4. The link of another account's request is no dead end.
	if _, err := s.Store.CreateUser(bg, "olive@example.com", "Olive", "olive's long password"); err != nil {
		t.Fatal(err)
	}
	olive, _ := s.Store.UserByEmail(bg, "olive@example.com")
	otok, err := s.Store.CreateGrantedToken(bg, olive, "olive's agent", shop.Grant{Actions: []string{"addToCart", "placeOrder"}})
	if err != nil {
		t.Fatal(err)
	}
	other := sitetest.New(t, s.App)
	other.Bearer = otok
	addTee(t, other, 1)
	ou := other.Call("/checkout", "placeOrder", map[string]any{}).Delta().ApprovalURL
	open(ou, "This request is for another account")
	reads("header nav", "Demo")
	if strings.Contains(eval(`document.querySelector("header nav").textContent`), "Sign in") {
		t.Error("the header of a signed-in shopper says Sign in")
	}
	shot("4-another-account")
	press(t, ctx, `main a.button`)
	reads("h1", "Sign in")
	shot("4-switch")
	press(t, ctx, `main form button[type=submit]`)
	reads(".flash", "Signed out")
	signIn("olive@example.com", "olive's long password")
	reads("h1", "Place this order?")
	if !strings.HasSuffix(eval("location.pathname"), route.LastSegment(ou)) {
		t.Errorf("after switching, the shopper is at %s", eval("location.pathname"))
	}
	shot("4-back-on-the-request")

	// 7. Back as the demo shopper: the decision, then the agent's use,
	// each in the page's heading and title.
	open("/account", "Your account")
	press(t, ctx, `form[data-action="signOut"] button[type=submit]`)
	reads(".flash", "Signed out")
	open("/login", "Sign in")
	signIn(shop.DemoEmail, shop.DemoPassword)
	reads("h1", "Your account")
	open(u, "Place this order?")
	press(t, ctx, `button[value="approve"]`)
	reads("h1", "Approved")
	if title := eval("document.title"); !strings.HasPrefix(title, "Approved") {
		t.Errorf("the title after approving: %q", title)
	}
	shot("7-approved")
	if w := agent.Call("/checkout", "placeOrder", map[string]any{}, sitetest.Confirm(), withApproval(route.LastSegment(u))); w.Code != 200 {
		t.Fatalf("the approved order: %d %s", w.Code, w.Body)
	}
	open(u, "Your agent placed this order")
	if title := eval("document.title"); !strings.HasPrefix(title, "Done") {
		t.Errorf("the title of a used approval: %q", title)
	}
	if eval(`(document.querySelector('main a[href="/orders"]')||{}).textContent||""`) == "" {
		t.Error("the used approval links no order")
	}
	shot("7-used")
}
