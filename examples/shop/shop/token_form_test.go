package shop_test

import (
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/affordances-go/affordances/examples/shop/shop"
	"github.com/affordances-go/affordances/examples/shop/shoptest"
)

// The account page's token form says in place why it refused, and keeps
// what the person typed and ticked: a daily cap without an amount per
// order, an amount per order above the daily one, and nothing ticked
// under "only what you tick" (which no longer makes an all-powerful
// token). "Everything you can do" is a choice the person makes.
func TestTokenForm_SaysWhyInPlaceAndKeepsTheFields(t *testing.T) {
	s := shoptest.StartWith(t, shop.Options{})
	ts := &testShop{url: s.URL, store: s.Store}
	p := ts.client(t, "")
	p.form("/login", url.Values{"_action": {"signIn"}, "email": {shop.DemoEmail}, "password": {shop.DemoPassword}})
	post := func(f url.Values) (int, string) {
		f.Set("_action", "createToken")
		res, body := p.do("POST", "/account", strings.NewReader(f.Encode()), "Content-Type", "application/x-www-form-urlencoded",
			"Origin", s.URL, "Sec-Fetch-Site", "same-origin", "Sec-Fetch-Mode", "navigate", "Sec-Fetch-User", "?1")
		return res.StatusCode, body
	}
	value := func(body, id string) string {
		m := regexp.MustCompile(`id="` + id + `"[^>]*value="([^"]*)"`).FindStringSubmatch(body)
		if m == nil {
			return "(none)"
		}
		return m[1]
	}
	ticked := func(body, action string) bool {
		return regexp.MustCompile(`value="` + action + `" checked`).MatchString(body)
	}
	demo, err := s.Store.UserByEmail(t.Context(), shop.DemoEmail)
	if err != nil {
		t.Fatal(err)
	}
	tokens := func() int {
		ts, err := s.Store.Tokens(t.Context(), demo)
		if err != nil {
			t.Fatal(err)
		}
		return len(ts)
	}
	before := tokens()

	for _, c := range []struct {
		name  string
		form  url.Values
		field string // the field whose error the page shows beside it
		words string
	}{
		{"a daily cap without an amount per order", url.Values{"label": {"weekly shop"}, "scope": {"some"}, "actions": {"addToCart", "placeOrder"}, "perDay": {"60"}},
			"perCall", "set the amount per call too"},
		{"an amount per order above the daily one", url.Values{"label": {"weekly shop"}, "scope": {"some"}, "actions": {"addToCart", "placeOrder"}, "perCall": {"50"}, "perDay": {"20"}},
			"perDay", "at least the amount of one call"},
		{"nothing ticked", url.Values{"label": {"weekly shop"}, "scope": {"some"}, "perCall": {"0"}, "perDay": {"0"}},
			"actions", "tick at least one"},
	} {
		code, body := post(c.form)
		if code != 400 {
			t.Fatalf("%s: %d, want 400", c.name, code)
		}
		if !regexp.MustCompile(`(?s)<span class="field-error">[^<]*` + regexp.QuoteMeta(c.words)).MatchString(body) {
			t.Errorf("%s: no message %q beside the field %s", c.name, c.words, c.field)
		}
		if got := value(body, "createToken-label"); got != "weekly shop" {
			t.Errorf("%s: the label reads %q after the refusal", c.name, got)
		}
		for _, a := range c.form["actions"] {
			if !ticked(body, a) {
				t.Errorf("%s: %s no longer ticked", c.name, a)
			}
		}
		for _, f := range []string{"perCall", "perDay"} {
			if want := c.form.Get(f); want != "" && value(body, "createToken-"+f) != want {
				t.Errorf("%s: %s reads %q, want %q", c.name, f, value(body, "createToken-"+f), want)
			}
		}
		if !strings.Contains(body, `value="some" checked`) {
			t.Errorf("%s: the choice of only what is ticked was lost", c.name)
		}
	}
	if n := tokens(); n != before {
		t.Fatalf("refused forms made %d tokens", n-before)
	}
	// Everything, chosen as such, makes a token that may do everything.
	if code, _ := post(url.Values{"label": {"all of it"}, "scope": {"all"}}); code != 303 {
		t.Fatalf("a token that may do everything: %d", code)
	}
	_, page := p.do("GET", "/account", nil, "Sec-Fetch-Site", "same-origin", "Sec-Fetch-Mode", "navigate", "Sec-Fetch-User", "?1")
	if !strings.Contains(page, "everything you can do") {
		t.Errorf("the new token's row does not say it may do everything")
	}
}
