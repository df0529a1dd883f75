package shop_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/webauthn"
	"github.com/chromedp/chromedp"

	"github.com/affordances-go/affordances/examples/shop/shop"
	"github.com/affordances-go/affordances/examples/shop/shoptest"
	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site/approval"
)

// TestBrowser_PresenceKeepsAnAgentInTheBrowserOut drives Debian's
// Chromium with a virtual authenticator (CDP's WebAuthn domain) on
// http://localhost:PORT (a passkey's RP ID is a domain). The person signs
// in and registers a passkey. Then an agent in that signed-in browser
// (clicking the page, posting forms past the script, calling JSON with
// the cookie, reading the page's WebMCP tools) tries to approve an order,
// create a token and revoke one while user verification is refused: none
// of it happens. With the person's verification each happens exactly
// once. An authenticator the agent adds cannot be enrolled without an
// existing passkey's assertion.
func TestBrowser_PresenceKeepsAnAgentInTheBrowserOut(t *testing.T) {
	ctx := browser(t, 180*time.Second)
	s := shoptest.StartWith(t, shop.Options{})
	base := s.LocalURL
	bg := context.Background()
	demo, err := s.Store.UserByEmail(bg, shop.DemoEmail)
	if err != nil {
		t.Fatal(err)
	}
	passkeys := func() int {
		cs, err := s.Store.Passkeys().Credentials(bg, "user:"+strconv.FormatInt(demo, 10))
		if err != nil {
			t.Fatal(err)
		}
		return len(cs)
	}
	tokens := func() int {
		ts, err := s.Store.Tokens(bg, demo)
		if err != nil {
			t.Fatal(err)
		}
		return len(ts)
	}

	// The person's authenticator: their phone, with a fingerprint.
	if _, err := chromedp.Call(ctx, webauthn.Enable, webauthn.EnableParams{}); err != nil {
		t.Fatalf("WebAuthn over CDP: %v", err)
	}
	added, err := chromedp.Call(ctx, webauthn.AddVirtualAuthenticator, webauthn.AddVirtualAuthenticatorParams{Options: &webauthn.VirtualAuthenticatorOptions{
		Protocol: "ctap2", Ctap2version: "ctap2_1", Transport: "internal", HasResidentKey: true, HasUserVerification: true,
		IsUserVerified: true, AutomaticPresenceSimulation: true}})
	if err != nil {
		t.Fatal(err)
	}
	phone := added.AuthenticatorID
	verify := func(ok bool) {
		t.Helper()
		if _, err := chromedp.Call(ctx, webauthn.SetUserVerified, webauthn.SetUserVerifiedParams{AuthenticatorID: phone, IsUserVerified: ok}); err != nil {
			t.Fatal(err)
		}
	}

	// The person signs in and adds their first passkey, with their password.
	err = chromedp.Do(ctx,
		chromedp.Navigate(base+"/login"),
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
	err = chromedp.Do(ctx,
		chromedp.WaitVisible(chromedp.CSS("#addPasskey-password")),
		chromedp.SetValue(chromedp.CSS("#addPasskey-name"), "my phone"),
		chromedp.SetValue(chromedp.CSS("#addPasskey-password"), shop.DemoPassword),
		chromedp.Click(chromedp.CSS(`form[data-action="addPasskey"] button[type=submit]`)),
	)
	if err != nil {
		t.Fatalf("adding a passkey: %v", err)
	}
	waitFor(t, "the passkey is added", func() bool { return passkeys() == 1 })
	passkeyListed(t, ctx)

	// An agent asks, with a token, to place an order.
	agentTok, err := s.Store.CreateToken(bg, demo, "agent")
	if err != nil {
		t.Fatal(err)
	}
	agentCall := func(path, body string, approvalID string) protocol.Delta {
		t.Helper()
		var b map[string]any
		json.Unmarshal([]byte(body), &b)
		if approvalID != "" {
			b["approval"] = approvalID
		}
		raw, _ := json.Marshal(b)
		req, _ := http.NewRequest("POST", s.URL+path, strings.NewReader(string(raw)))
		req.Header.Set("Content-Type", protocol.MediaType)
		req.Header.Set("Authorization", "Bearer "+agentTok)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var d protocol.Delta
		json.NewDecoder(res.Body).Decode(&d)
		return d
	}
	agentCall("/products/heavyweight-tee", `{"action":"addToCart","input":{"sku":"TEE-BLK-M"}}`, "")
	d := agentCall("/checkout", `{"action":"placeOrder","confirm":true}`, "")
	u := d.ApprovalURL
	if u == "" {
		t.Fatalf("no approval asked: %+v", d)
	}
	id := u[strings.LastIndex(u, "/")+1:]
	state := func() approval.State {
		a, err := s.Store.Approvals().Get(bg, id)
		if err != nil {
			t.Fatal(err)
		}
		return a.State
	}

	// The agent, in the person's browser, while the person's finger is
	// not on the phone (user verification refused).
	verify(false)
	beforeTokens := tokens()
	// 1. It opens the approval page and clicks Approve.
	err = chromedp.Do(ctx, chromedp.Navigate(base+u), chromedp.WaitVisible(chromedp.CSS(`button[value="approve"]`)),
		chromedp.Click(chromedp.CSS(`button[value="approve"]`)))
	if err != nil {
		t.Fatal(err)
	}
	presenceRefused(t, ctx)
	// 2. It posts the approval form past the script.
	leavePage(t, ctx, "posting the approval past the script", `(function(){var f=document.querySelector("form.decide");var i=document.createElement("input");i.type="hidden";i.name="_decision";i.value="approve";f.appendChild(i);HTMLFormElement.prototype.submit.call(f);return true})()`)
	// 3. It creates a token and revokes one by clicking the account page,
	// and posts a token form past the script.
	err = chromedp.Do(ctx, chromedp.Navigate(base+"/account"), chromedp.WaitVisible(chromedp.CSS("#createToken-label")),
		chromedp.SetValue(chromedp.CSS("#createToken-label"), "printed at start"),
		chromedp.SetValue(chromedp.CSS("#createToken-perCall"), "1000"),
		chromedp.SetValue(chromedp.CSS("#createToken-perDay"), "5000"),
		chromedp.Click(chromedp.CSS(`form[data-action="createToken"] button[type=submit]`)))
	if err != nil {
		t.Fatal(err)
	}
	presenceRefused(t, ctx)
	leavePage(t, ctx, "posting the token form past the script", `(function(){var f=document.querySelector('form[data-action="createToken"]');HTMLFormElement.prototype.submit.call(f);return true})()`)
	// 4. It calls createToken and revokeToken as JSON with the cookie (a
	// WebMCP tool's call), and reads the tools the page offers.
	answers, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(async function(){
		var h={"Content-Type":"application/vnd.affordances+json","Accept":"application/vnd.affordances+json"};
		var a=await fetch("/account",{method:"POST",headers:h,body:JSON.stringify({action:"createToken",input:{label:"x",perCall:1000,perDay:5000}})});
		var b=await fetch("/account",{method:"POST",headers:h,body:JSON.stringify({action:"revokeToken",confirm:true,input:{id:1}})});
		var tools=(document.getElementById("affordances-webmcp")||{}).textContent||"";
		return a.status+" "+b.status+" "+tools;
	})()`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(answers, "403 403 ") || strings.Contains(answers, "createToken") || strings.Contains(answers, "Passkey") {
		t.Errorf("the agent's JSON calls and the page's tools: %s", answers)
	}
	if state() != approval.Pending || s.Orders(t) != 0 || tokens() != beforeTokens {
		t.Fatalf("without the person's verification: approval %s, %d orders, %d tokens (was %d)", state(), s.Orders(t), tokens(), beforeTokens)
	}
	// 5. It adds an authenticator of its own and enrols it: the form needs
	// the person's existing passkey, which does not verify.
	own, err := chromedp.Call(ctx, webauthn.AddVirtualAuthenticator, webauthn.AddVirtualAuthenticatorParams{Options: &webauthn.VirtualAuthenticatorOptions{
		Protocol: "ctap2", Ctap2version: "ctap2_1", Transport: "usb", HasResidentKey: true, HasUserVerification: true,
		IsUserVerified: true, AutomaticPresenceSimulation: true}})
	if err != nil {
		t.Fatal(err)
	}
	err = chromedp.Do(ctx, chromedp.Navigate(base+"/account"), chromedp.WaitVisible(chromedp.CSS("#addPasskey-name")),
		chromedp.SetValue(chromedp.CSS("#addPasskey-name"), "the agent's key"),
		chromedp.Click(chromedp.CSS(`form[data-action="addPasskey"] button[type=submit]`)))
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(1500 * time.Millisecond)
	if n := passkeys(); n != 1 {
		t.Fatalf("the agent enrolled its own authenticator: %d passkeys", n)
	}

	// The agent's authenticator goes (it holds a passkey the site never
	// took, which a sign-in could pick); the person, with their finger:
	// each happens once.
	if _, err := chromedp.Call(ctx, webauthn.RemoveVirtualAuthenticator, webauthn.RemoveVirtualAuthenticatorParams(own)); err != nil {
		t.Fatal(err)
	}
	verify(true)
	err = chromedp.Do(ctx, chromedp.Navigate(base+u), chromedp.WaitVisible(chromedp.CSS(`button[value="approve"]`)))
	if err != nil {
		t.Fatal(err)
	}
	pressAndLand(t, ctx, `button[value="approve"]`)
	waitFor(t, "the person's approval", func() bool { return state() == approval.Approved })
	if d := agentCall("/checkout", `{"action":"placeOrder","confirm":true}`, id); !d.OK || s.Orders(t) != 1 {
		t.Fatalf("the approved order: %+v, %d orders", d, s.Orders(t))
	}
	if d := agentCall("/checkout", `{"action":"placeOrder","confirm":true}`, id); d.OK || s.Orders(t) != 1 {
		t.Fatalf("the approval used twice: %+v, %d orders", d, s.Orders(t))
	}
	err = chromedp.Do(ctx, chromedp.Navigate(base+"/account"), chromedp.WaitVisible(chromedp.CSS("#createToken-label")),
		chromedp.SetValue(chromedp.CSS("#createToken-label"), "calendar"),
		// Nothing ticked no longer means everything (issue 53): the
		// person says what the token may do.
		chromedp.Click(chromedp.CSS(`form[data-action="createToken"] input[name=actions][value=addToCart]`)),
		chromedp.Click(chromedp.CSS(`form[data-action="createToken"] button[type=submit]`)))
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the person's token", func() bool { return tokens() == beforeTokens+1 })
	time.Sleep(500 * time.Millisecond)
	if tokens() != beforeTokens+1 {
		t.Fatalf("the person's token form made %d tokens", tokens()-beforeTokens)
	}
	text, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("main")))
	if !strings.Contains(text, "shown only this once") {
		t.Errorf("the new token is not shown to the person:\n%s", text)
	}

	// The person signs out, and in again with the passkey alone.
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`form[data-action="signOut"] button[type=submit]`))); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "signed out", func() bool {
		loc, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`location.pathname`))
		return loc == "/"
	})
	err = chromedp.Do(ctx, chromedp.Navigate(base+"/login"),
		chromedp.WaitVisible(chromedp.CSS(`form[data-passkey-signin] button`)),
		chromedp.Click(chromedp.CSS(`form[data-passkey-signin] button`)))
	if err != nil {
		t.Fatalf("signing in with the passkey: %v", err)
	}
	if h := waitText(t, ctx, "h1", "Your account"); h != "Your account" {
		text, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("main")))
		t.Fatalf("after signing in with the passkey: %q\n%s", h, text)
	}
}

// A first passkey needs the account's password typed again: an agent on
// the person's session, which has not got it, cannot add one.
func TestPasskeys_TheFirstNeedsThePassword(t *testing.T) {
	s := shoptest.StartWith(t, shop.Options{})
	ts := &testShop{url: s.URL, store: s.Store}
	p := ts.client(t, "")
	p.form("/login", url.Values{"_action": {"signIn"}, "email": {shop.DemoEmail}, "password": {shop.DemoPassword}})
	for _, pw := range []string{"", "wrong password"} {
		res, body := p.form("/account", url.Values{"_action": {"addPasskey"}, "name": {"the agent's"}, "password": {pw},
			"credential": {`{"id":"x"}`}, "nonce": {"n"}})
		if res.StatusCode != 400 || !strings.Contains(body, "password") {
			t.Errorf("a first passkey with the password %q: %d", pw, res.StatusCode)
		}
	}
}

// waitFor waits up to ten seconds for ok.
func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	for range 300 { // 30 s: a loaded 2-core machine is slow
		if ok() {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("%s: did not happen", what)
}
