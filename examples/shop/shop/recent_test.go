package shop_test

import (
	"context"
	"net/url"
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
