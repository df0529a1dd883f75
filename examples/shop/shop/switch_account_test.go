package shop_test

import (
	"context"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/affordances-go/affordances/examples/shop/shop"
	"github.com/affordances-go/affordances/examples/shop/shoptest"
)

// An approval link for another account is no dead end: the page's header
// shows the shopper signed in (not "Sign in"), its link leads to a
// sign-in page that offers to sign out and sign in to the other account,
// and the way back ends on the approval page, now of the right account.
func TestApprovalPage_AnotherAccountHasAWayThrough(t *testing.T) {
	s := shoptest.StartWith(t, shop.Options{})
	ctx := context.Background()
	c := grantedAgent(t, s, shop.Grant{Actions: []string{"addToCart", "placeOrder"}})
	addTee(t, c, 1)
	u := c.Call("/checkout", "placeOrder", map[string]any{}).Delta().ApprovalURL
	if u == "" {
		t.Fatal("no approval link")
	}
	if _, err := s.Store.CreateUser(ctx, "other@example.com", "Olive Other", "another long password"); err != nil {
		t.Fatal(err)
	}
	ts := &testShop{url: s.URL, store: s.Store}
	p := ts.client(t, "")
	nav := []string{"Sec-Fetch-Site", "same-origin", "Sec-Fetch-Mode", "navigate", "Sec-Fetch-User", "?1"}
	p.form("/login", url.Values{"_action": {"signIn"}, "email": {"other@example.com"}, "password": {"another long password"}})

	res, page := p.do("GET", u, nil, nav...)
	if res.StatusCode != 403 || !strings.Contains(page, "another account") {
		t.Fatalf("the approval page of another account: %d", res.StatusCode)
	}
	header := page[strings.Index(page, "<header"):strings.Index(page, "</header>")]
	if !strings.Contains(header, "Olive Other") || strings.Contains(header, ">Sign in<") {
		t.Errorf("the header of a signed-in shopper says:\n%s", header)
	}
	link := regexp.MustCompile(`href="(/login\?next=[^"]+)"`).FindStringSubmatch(page)
	if link == nil {
		t.Fatalf("no link to sign in to the other account:\n%s", page)
	}
	login := strings.ReplaceAll(link[1], "&amp;", "&")
	_, page = p.do("GET", login, nil, nav...)
	form := regexp.MustCompile(`<form method="post" action="([^"]+)"[^>]*>[^<]*(?:<input[^>]*>)*<button[^>]*>Sign out, then sign in to another account`).FindStringSubmatch(page)
	if form == nil || !strings.Contains(page, "Olive Other") || !strings.Contains(page, `href="`+u+`"`) {
		t.Fatalf("the sign-in page of a signed-in shopper offers no way to switch or back:\n%s", page)
	}
	action := strings.ReplaceAll(form[1], "&amp;", "&")
	res, _ = p.form(action, url.Values{"_action": {"signOut"}})
	if res.StatusCode != 303 || res.Header.Get("Location") != "/login?next="+url.QueryEscape(u) {
		t.Fatalf("sign out to switch: %d, to %q", res.StatusCode, res.Header.Get("Location"))
	}
	res, _ = p.form(res.Header.Get("Location"), url.Values{"_action": {"signIn"}, "email": {shop.DemoEmail}, "password": {shop.DemoPassword}})
	if res.StatusCode != 303 || res.Header.Get("Location") != u {
		t.Fatalf("signing in to the other account: %d, to %q", res.StatusCode, res.Header.Get("Location"))
	}
	if res, page := p.do("GET", u, nil, nav...); res.StatusCode != 200 || !strings.Contains(page, "Approve") {
		t.Fatalf("the approval page after switching: %d", res.StatusCode)
	}
}
