package shop_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/affordances-go/affordances/examples/shop/shop"
	"github.com/affordances-go/affordances/examples/shop/shoptest"
)

// Every script a page loads is served, with or without passkeys: a shop
// without an origin for passkeys has no script of presence, and its
// pages must not ask for one (a 404 in every page's console, which a
// browser agent reads).
func TestPages_LoadOnlyScriptsTheSiteServes(t *testing.T) {
	ctx := context.Background()
	db, err := shop.Open(ctx, filepath.Join(t.TempDir(), "shop.db"))
	if err != nil {
		t.Fatal(err)
	}
	store := shop.NewStore(db)
	t.Cleanup(func() { store.Close(ctx); db.Close() })
	if err := store.Seed(ctx); err != nil {
		t.Fatal(err)
	}
	plain := httptest.NewServer(shop.New(store, shop.Options{NoApprovals: true})) // no origins: no passkeys
	t.Cleanup(plain.Close)
	withPasskeys := shoptest.Start(t)
	for _, c := range []struct {
		name, url string
		presence  bool
	}{{"without passkeys", plain.URL, false}, {"with passkeys", withPasskeys.URL, true}} {
		browser := &client{t: t, base: c.url, http: http.DefaultClient}
		for _, path := range []string{"/", "/products/heavyweight-tee", "/cart", "/login"} {
			_, html := browser.do("GET", path, nil, "Accept", "text/html")
			if got := strings.Contains(html, "/_affordances/presence.js"); got != c.presence {
				t.Errorf("%s: %s loads the script of presence: %v", c.name, path, got)
			}
			for _, m := range regexp.MustCompile(`<script[^>]*\ssrc="([^"]+)"`).FindAllStringSubmatch(html, -1) {
				res, _ := browser.do("GET", m[1], nil)
				if res.StatusCode != 200 || !strings.Contains(res.Header.Get("Content-Type"), "javascript") {
					t.Errorf("%s: %s loads %s: %d %s", c.name, path, m[1], res.StatusCode, res.Header.Get("Content-Type"))
				}
			}
		}
	}
}
