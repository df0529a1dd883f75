package shop_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/affordances-go/affordances/examples/shop/shop"
	"github.com/affordances-go/affordances/examples/shop/shoptest"
	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site/sitetest"
)

// Guessing a password is limited whatever the caller invents: a made-up
// guest cookie is not an identity (the calls share the address's bucket),
// and failed sign-ins are limited per account whatever the address.
func TestSignIn_GuessingIsLimitedPerAddressAndPerAccount(t *testing.T) {
	ts := newTestShop(t)
	wrong := map[string]any{"email": shop.DemoEmail, "password": "guess"}
	codes := map[int]int{}
	for i := range 12 {
		c := ts.client(t, "")
		u, _ := url.Parse(ts.url)
		c.http.Jar.SetCookies(u, []*http.Cookie{{Name: "cart", Value: "invented-" + strconv.Itoa(i), Path: "/"}})
		code, _ := c.call("/login", "signIn", wrong, false)
		codes[code]++
	}
	if codes[429] == 0 {
		t.Fatalf("12 guesses with invented cookies were never limited: %v", codes)
	}

	// Per account and address: the sixth guess from one address is
	// refused (in process, so that the address can be chosen), and the
	// owner, from another address, still signs in.
	c := sitetest.New(t, shoptest.Start(t).App)
	from := func(i int) sitetest.Option {
		return func(r *http.Request) { r.RemoteAddr = "198.51.100." + strconv.Itoa(i) + ":4000" }
	}
	var res *sitetest.Response
	for range 6 {
		res = c.CallBody("/login", `{"action":"signIn","input":{"email":"`+shop.DemoEmail+`","password":"guess"}}`, from(1))
	}
	if d := res.Delta(); res.Code != 429 || d.Error.Code != protocol.CodeRateLimited || res.Header().Get("Retry-After") == "" {
		t.Fatalf("sixth failure from one address: %d %s", res.Code, res.Body)
	}
	if res := c.CallBody("/login", `{"action":"signIn","input":{"email":"`+shop.DemoEmail+`","password":"`+shop.DemoPassword+`"}}`, from(1)); res.Code != 429 {
		t.Errorf("the guesser's address with the right password: %d", res.Code)
	}
	if res := c.CallBody("/login", `{"action":"signIn","input":{"email":"`+shop.DemoEmail+`","password":"`+shop.DemoPassword+`"}}`, from(2)); res.Code != 200 {
		t.Errorf("the owner, elsewhere, is locked out: %d %s", res.Code, res.Body)
	}
}

// A stranger who guesses from many addresses slows the account's
// sign-ins down, but cannot lock out the owner's browser, which signed in
// before.
func TestSignIn_AStrangerCannotLockTheOwnerOut(t *testing.T) {
	c := sitetest.New(t, shoptest.Start(t).App)
	from := func(i int) sitetest.Option {
		return func(r *http.Request) { r.RemoteAddr = "203.0.113." + strconv.Itoa(i) + ":4000" }
	}
	signIn := func(password string, opts ...sitetest.Option) *sitetest.Response {
		return c.CallBody("/login", `{"action":"signIn","input":{"email":"`+shop.DemoEmail+`","password":"`+password+`"}}`, opts...)
	}
	// The owner's browser signed in once: it has a device cookie.
	res := signIn(shop.DemoPassword, from(200))
	var device string
	for _, ck := range res.Result().Cookies() {
		if ck.Name == "device" {
			device = ck.Value
		}
	}
	if res.Code != 200 || device == "" {
		t.Fatalf("first sign-in: %d, device cookie %q", res.Code, device)
	}
	// 40 guesses from 40 addresses: the account is then slowed.
	refused := 0
	for i := range 40 {
		if signIn("guess", from(i)).Code == 429 {
			refused++
		}
	}
	if refused == 0 {
		t.Fatalf("40 guesses from 40 addresses were never slowed")
	}
	if res := signIn(shop.DemoPassword, from(201)); res.Code != 429 {
		t.Errorf("a new browser during the guessing is not slowed: %d", res.Code)
	}
	owner := sitetest.Header("Cookie", "device="+device)
	if res := signIn(shop.DemoPassword, from(202), owner); res.Code != 200 {
		t.Fatalf("the owner's browser is locked out: %d %s", res.Code, res.Body)
	}
	// The device cookie is no credential, and another account's device
	// does not help.
	if res := signIn("guess", from(203), owner); res.Code != 409 {
		t.Errorf("a wrong password with the device cookie: %d", res.Code)
	}
}

// Minting guest carts buys no extra guesses: sign-in and sign-up are
// limited by the client's address as well as by the caller.
func TestSignIn_GuestCartsDoNotResetTheLimits(t *testing.T) {
	c := sitetest.New(t, shoptest.Start(t).App)
	codes := map[int]int{}
	for i := range 12 {
		// Each attempt with a fresh guest cart, as one anonymous
		// addToCart mints.
		res := c.Call("/products/heavyweight-tee", "addToCart", map[string]any{"sku": "TEE-BLK-M"})
		var cart string
		for _, ck := range res.Result().Cookies() {
			if ck.Name == "cart" {
				cart = ck.Value
			}
		}
		r := c.CallBody("/signup", `{"action":"signUp","input":{"name":"N","email":"n`+strconv.Itoa(i)+`@example.com","password":"a long password"}}`,
			sitetest.Header("Cookie", "cart="+cart))
		codes[r.Code]++
	}
	if codes[429] == 0 {
		t.Fatalf("12 sign-ups with 12 guest carts from one address were never limited: %v", codes)
	}
}

// signOut ends a browser session. With a token it is unavailable and says
// why, and the token keeps working, as the answer says.
func TestSignOut_WithATokenRefusesAndSaysWhy(t *testing.T) {
	ts := newTestShop(t)
	agent := ts.client(t, ts.token)
	g := agent.graph("/account")
	if a := g.Action("signOut"); a == nil || a.Available || !strings.Contains(a.Reason, "revokeToken") {
		t.Fatalf("signOut for a token: %+v", a)
	}
	code, d := agent.call("/account", "signOut", map[string]any{}, false)
	if code != 409 || d.Error == nil || !strings.Contains(d.Error.Message, "revokeToken") {
		t.Fatalf("signOut with a token: %d %+v", code, d)
	}
	if g := agent.graph("/account"); g.Entities["profile"] == nil {
		t.Fatal("the token stopped working")
	}
	// With a session it works, and the session is over.
	person := ts.client(t, "")
	person.call("/login", "signIn", map[string]any{"email": shop.DemoEmail, "password": shop.DemoPassword}, false)
	if code, d := person.call("/account", "signOut", map[string]any{}, false); code != 200 || d.Changed == nil {
		t.Fatalf("signOut with a session: %d %+v", code, d)
	}
	if g := person.graph("/account"); g.Entities["profile"] != nil {
		t.Fatal("still signed in after signOut")
	}
}

// Signing in again ends the session it replaces.
func TestSignIn_EndsTheSessionItReplaces(t *testing.T) {
	ts := newTestShop(t)
	p := ts.client(t, "")
	p.call("/login", "signIn", map[string]any{"email": shop.DemoEmail, "password": shop.DemoPassword}, false)
	u, _ := url.Parse(ts.url)
	var first *http.Cookie
	for _, c := range p.http.Jar.Cookies(u) {
		if c.Name == "sid" {
			first = c
		}
	}
	if first == nil {
		t.Fatal("no session cookie")
	}
	p.call("/login", "signIn", map[string]any{"email": shop.DemoEmail, "password": shop.DemoPassword}, false)
	old := ts.client(t, "")
	old.http.Jar.SetCookies(u, []*http.Cookie{first})
	if g := old.graph("/account"); g.Entities["profile"] != nil {
		t.Error("the replaced session still signs in")
	}
	if g := p.graph("/account"); g.Entities["profile"] == nil {
		t.Error("the new session does not sign in")
	}
}

// The session cookie's attributes.
func TestSessionCookie_Attributes(t *testing.T) {
	ts := newTestShop(t)
	res, _ := ts.client(t, "").form("/login", url.Values{"_action": {"signIn"}, "email": {shop.DemoEmail}, "password": {shop.DemoPassword}})
	var sid *http.Cookie
	for _, c := range res.Cookies() {
		if c.Name == "sid" {
			sid = c
		}
	}
	if sid == nil || !sid.HttpOnly || sid.SameSite != http.SameSiteLaxMode || sid.Path != "/" || sid.MaxAge <= 0 {
		t.Fatalf("session cookie %+v", sid)
	}
	if sid.Secure {
		t.Error("Secure on a plain-HTTP connection: the browser would drop the cookie")
	}
}

// Paths a client gets wrong are 4xx, never 500, and static/ is not listed.
func TestStatic_BadPathsAre404AndNothingIsListed(t *testing.T) {
	ts := newTestShop(t)
	c := ts.client(t, "")
	for _, p := range []string{"/static/%ff", "/static/a%c0", "/static/%c0%ae%c0%ae/etc/passwd", "/static/", "/static/..%2fshop.go", "/static/nope.css"} {
		res, body := c.do("GET", p, nil)
		if res.StatusCode != 404 || strings.Contains(body, "<pre>") {
			t.Errorf("%s: %d", p, res.StatusCode)
		}
	}
	if res, _ := c.do("GET", "/static/style.css", nil); res.StatusCode != 200 {
		t.Errorf("the stylesheet: %d", res.StatusCode)
	}
}

// Personal pages may not be kept by a shared cache.
func TestPersonalPages_AreNotCached(t *testing.T) {
	ts := newTestShop(t)
	p := ts.client(t, "")
	p.form("/login", url.Values{"_action": {"signIn"}, "email": {shop.DemoEmail}, "password": {shop.DemoPassword}})
	for _, path := range []string{"/account", "/orders", "/cart", "/checkout", "/", "/products/heavyweight-tee"} {
		if res, _ := p.do("GET", path, nil); res.Header.Get("Cache-Control") != "private, no-store" {
			t.Errorf("%s signed in: Cache-Control %q", path, res.Header.Get("Cache-Control"))
		}
	}
	guest := ts.client(t, "")
	for _, path := range []string{"/cart", "/checkout"} {
		if res, _ := guest.do("GET", path, nil); res.Header.Get("Cache-Control") != "private, no-store" {
			t.Errorf("%s for a guest: Cache-Control %q", path, res.Header.Get("Cache-Control"))
		}
	}
}

// One order, one URL; a page number past the catalog is no page.
func TestURLs_CanonicalOrdersAndCatalogPages(t *testing.T) {
	ts := newTestShop(t)
	agent := ts.client(t, ts.token)
	agent.call("/products/heavyweight-tee", "addToCart", map[string]any{"sku": "TEE-BLK-M"}, false)
	_, d := agent.call("/checkout", "placeOrder", map[string]any{}, true)
	id := strings.TrimPrefix(d.Redirect, "/orders/")
	for path, want := range map[string]int{
		"/orders/" + id: 200, "/orders/0" + id: 404, "/orders/+" + id: 404,
		"/?page=1": 200, "/?page=2": 200, "/?page=3": 404, "/?page=0": 404, "/?page=9223372036854775807": 404, "/?page=x": 404,
	} {
		if res, _ := agent.do("GET", path, nil, "Accept", protocol.MediaType); res.StatusCode != want {
			t.Errorf("%s: %d, want %d", path, res.StatusCode, want)
		}
	}
}

// A search query cannot put markup in the graph's md.
func TestMarkdown_TheSearchQueryIsEscaped(t *testing.T) {
	ts := newTestShop(t)
	q := `<img src=x onerror=alert(1)> [x](javascript:alert(1))`
	g := ts.client(t, "").graph("/?q=" + url.QueryEscape(q))
	if regexp.MustCompile(`(^|[^\\])(<img|\]\(javascript)`).MatchString(g.MD) || !strings.Contains(g.MD, `\<img`) {
		t.Errorf("md carries markup: %s", g.MD)
	}
}

// A second person signs up, and gets none of the first one's things.
func TestSignUp_CreatesAnAccountAndSignsIn(t *testing.T) {
	ts := newTestShop(t)
	p := ts.client(t, "")
	code, d := p.call("/signup", "signUp", map[string]any{"name": "Grace", "email": "grace@example.com", "password": "correct horse"}, false)
	if code != 200 || d.Redirect != "/account" {
		t.Fatalf("signUp: %d %+v", code, d)
	}
	if g := p.graph("/account"); g.Entities["profile"] == nil {
		t.Fatal("not signed in after signing up")
	}
	code, d = ts.client(t, "").call("/signup", "signUp", map[string]any{"name": "Again", "email": "GRACE@example.com", "password": "another one"}, false)
	if code != 400 || d.Error == nil || len(d.Error.Issues) != 1 || d.Error.Issues[0].Path != "/email" {
		t.Fatalf("second sign-up with the email: %d %+v", code, d.Error)
	}
	if code, _ := ts.client(t, "").call("/signup", "signUp", map[string]any{"name": "Short", "email": "s@example.com", "password": "short"}, false); code != 400 {
		t.Errorf("a short password: %d", code)
	}
}

// The health endpoint answers when the database does.
func TestHealth_AnswersWithTheDatabase(t *testing.T) {
	ts := newTestShop(t)
	if res, body := ts.client(t, "").do("GET", "/healthz", nil); res.StatusCode != 200 || body != "ok\n" {
		t.Fatalf("healthy: %d %q", res.StatusCode, body)
	}
}

// Browsers ask for /favicon.ico whatever the page links: the store has one.
func TestFavicon(t *testing.T) {
	ts := newTestShop(t)
	for _, path := range []string{"/favicon.ico", "/static/favicon.svg"} {
		res, body := ts.client(t, "").do("GET", path, nil)
		if res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "image/svg+xml") || !strings.Contains(body, "<svg") {
			t.Errorf("%s: %d %s", path, res.StatusCode, res.Header.Get("Content-Type"))
		}
	}
}
