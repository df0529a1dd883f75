package shop_test

import (
	"context"
	"strings"
	"testing"

	"github.com/affordances-go/affordances/examples/shop/shop"
	"github.com/affordances-go/affordances/examples/shop/shoptest"
	"github.com/affordances-go/affordances/internal/route"
	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site/sitetest"
)

// The person sees their agents' requests on the account page, those
// waiting for them first, each linking its approval page; an agent reading
// the page sees none. An approval that went out of date (the cart changed
// after it was given) says so, with a link to the request the agent made
// since, and says "not used" nowhere; once used, the page says what
// happened in its title and heading, and links the order.
func TestAccount_TheAgentsRequestsAndTheirStates(t *testing.T) {
	s := shoptest.StartWith(t, shop.Options{})
	ctx := context.Background()
	c := grantedAgent(t, s, shop.Grant{Actions: []string{"addToCart", "placeOrder"}})
	addTee(t, c, 1)
	u1 := c.Call("/checkout", "placeOrder", map[string]any{}).Delta().ApprovalURL
	demo, _ := s.Store.UserByEmail(ctx, shop.DemoEmail)
	sess, err := s.Store.CreateSession(ctx, demo)
	if err != nil {
		t.Fatal(err)
	}
	_, page := getAs(t, s, sess, "/account")
	if !strings.Contains(page, `href="`+u1+`"`) || !strings.Contains(page, "waiting for you") {
		t.Fatalf("the account page does not list the waiting request %s:\n%s", u1, page)
	}
	if g := c.Graph("/account"); g.Entities["requests"] != nil {
		t.Errorf("an agent's graph of the account page lists the requests")
	}

	approve(t, s, sess, u1)
	addTee(t, c, 1) // the cart changes after the person approved
	w := c.Call("/checkout", "placeOrder", map[string]any{}, sitetest.Confirm(), withApproval(route.LastSegment(u1)))
	u2 := w.Delta().ApprovalURL
	if w.Code != 428 || u2 == "" || u2 == u1 || s.Orders(t) != 0 {
		t.Fatalf("the approval of another cart: %d %s", w.Code, w.Body)
	}
	_, page = getAs(t, s, sess, u1)
	if !strings.Contains(page, "<title>Out of date: place order") || !strings.Contains(page, "out of date") ||
		!strings.Contains(page, `href="`+route.LastSegment(u2)+`"`) || strings.Contains(page, "not used yet") {
		t.Errorf("the out-of-date approval's page:\n%s", page)
	}
	_, page = getAs(t, s, sess, "/account")
	if i, j := strings.Index(page, u2), strings.Index(page, u1); i < 0 || j < 0 || i > j || !strings.Contains(page, "out of date: your agent asked again") {
		t.Errorf("the account page lists the new request first and the old one as out of date:\n%s", page)
	}

	approve(t, s, sess, u2)
	if w := c.Call("/checkout", "placeOrder", map[string]any{}, sitetest.Confirm(), withApproval(route.LastSegment(u2))); w.Code != 200 || s.Orders(t) != 1 {
		t.Fatalf("the approved order: %d %s", w.Code, w.Body)
	}
	_, page = getAs(t, s, sess, u2)
	if !strings.Contains(page, "<title>Done: place order") || !strings.Contains(page, "Your agent placed this order") ||
		!strings.Contains(page, `href="/orders"`) || strings.Contains(page, "Place this order?") {
		t.Errorf("the used approval's page:\n%s", page)
	}
	if _, page = getAs(t, s, sess, "/account"); !strings.Contains(page, "done") {
		t.Errorf("the account page does not say the request was done")
	}
}

// withApproval names the approval a call brings.
func withApproval(id string) sitetest.CallOption {
	return func(c *protocol.Call) { c.Approval = id }
}
