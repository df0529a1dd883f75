package shop_test

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/affordances-go/affordances/examples/shop/shop"
	"github.com/affordances-go/affordances/examples/shop/shoptest"
)

// Without a passkey, a cookie alone does not make a token: the session
// must have been signed in with the password in the last ten minutes.
// Past that, the person is told to sign in again, and nothing is made;
// signed in again, the same form makes the token.
func TestTokens_ACookieAloneMakesNoToken(t *testing.T) {
	s := shoptest.StartWith(t, shop.Options{})
	ts := &testShop{url: s.URL, store: s.Store}
	p := ts.client(t, "")
	signIn := url.Values{"_action": {"signIn"}, "email": {shop.DemoEmail}, "password": {shop.DemoPassword}}
	p.form("/login", signIn)
	demo, err := s.Store.UserByEmail(context.Background(), shop.DemoEmail)
	if err != nil {
		t.Fatal(err)
	}
	tokens := func() int {
		ts, err := s.Store.Tokens(context.Background(), demo)
		if err != nil {
			t.Fatal(err)
		}
		return len(ts)
	}
	before := tokens()
	if err := s.Store.AgeSessions(context.Background(), 11*time.Minute); err != nil {
		t.Fatal(err)
	}
	make := url.Values{"_action": {"createToken"}, "label": {"from an old session"}}
	res, body := p.form("/account", make)
	if res.StatusCode != 403 || !strings.Contains(body, "sign in again with your password") || tokens() != before {
		t.Fatalf("an old session's createToken: %d, %d tokens (was %d)\n%s", res.StatusCode, tokens(), before, body)
	}
	if res, body := p.do("GET", "/login", nil); res.StatusCode != 200 || !strings.Contains(body, "Sign in again") {
		t.Errorf("the sign-in page of a signed-in person: %d\n%s", res.StatusCode, body)
	}
	p.form("/login", signIn)
	if res, _ := p.form("/account", make); res.StatusCode != 303 || tokens() != before+1 {
		t.Errorf("after signing in again: %d, %d tokens", res.StatusCode, tokens())
	}
}

// Without a passkey, approving an agent's order needs a recent sign-in
// too: an old session's approval is refused on the page, with the way to
// sign in again, and the approval stays pending; a fresh one approves.
func TestApprovalPage_AnOldSessionDoesNotApprove(t *testing.T) {
	s := shoptest.StartWith(t, shop.Options{})
	ctx := context.Background()
	c := grantedAgent(t, s, shop.Grant{Actions: []string{"addToCart", "placeOrder"}})
	addTee(t, c, 1)
	w := c.Call("/checkout", "placeOrder", nil)
	u := w.Delta().ApprovalURL
	if w.Code != 428 || u == "" {
		t.Fatalf("the agent's order: %d %s", w.Code, w.Body)
	}
	demo, _ := s.Store.UserByEmail(ctx, shop.DemoEmail)
	old, err := s.Store.CreateSession(ctx, demo)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Store.AgeSessions(ctx, 11*time.Minute); err != nil {
		t.Fatal(err)
	}
	decide := func(sess string) (int, string) {
		req, _ := http.NewRequest("POST", s.URL+u, strings.NewReader(url.Values{"_decision": {"approve"}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Origin", s.URL)
		req.AddCookie(&http.Cookie{Name: "sid", Value: sess})
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	if code, page := decide(old); code != 403 || !strings.Contains(page, "sign in again with your password") {
		t.Fatalf("an old session approves: %d\n%s", code, page)
	}
	fresh, err := s.Store.CreateSession(ctx, demo)
	if err != nil {
		t.Fatal(err)
	}
	if code, _ := decide(fresh); code != 200 {
		t.Errorf("a fresh session approves: %d", code)
	}
}

// A passkey added since the last sign-in is told at the next one, with
// when and from which browser; a sign-in after that tells nothing more.
func TestPasskeys_AnAddedPasskeyIsToldAtTheNextSignIn(t *testing.T) {
	s := shoptest.StartWith(t, shop.Options{})
	ts := &testShop{url: s.URL, store: s.Store}
	ctx := context.Background()
	demo, _ := s.Store.UserByEmail(ctx, shop.DemoEmail)
	p := ts.client(t, "")
	signIn := func() string {
		res, _ := p.form("/login", url.Values{"_action": {"signIn"}, "email": {shop.DemoEmail}, "password": {shop.DemoPassword}})
		_, page := p.do("GET", res.Header.Get("Location"), nil)
		return page
	}
	signIn()
	if err := s.Store.AgeSessions(ctx, time.Hour); err != nil {
		t.Fatal(err)
	}
	if err := s.Store.AddPasskeyRow(ctx, "user:"+strconv.FormatInt(demo, 10), "k1", "a key", "Chrome on Linux", time.Now().Add(-time.Minute)); err != nil {
		t.Fatal(err)
	}
	page := signIn()
	if !strings.Contains(page, "Since you last signed in, a passkey was added") || !strings.Contains(page, "from Chrome on Linux") {
		t.Errorf("the sign-in after a passkey was added:\n%s", page)
	}
	if again := signIn(); strings.Contains(again, "Since you last signed in") {
		t.Errorf("told twice:\n%s", again)
	}
	if got := shop.BrowserOf("Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36"); got != "Chrome on Linux" {
		t.Errorf("browserOf: %q", got)
	}
}
