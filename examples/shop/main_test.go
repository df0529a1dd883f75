package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"testing"

	"github.com/affordances-go/affordances/examples/shop/shop"
)

// -origins and -trusted-proxies take what the guide shows, and refuse the
// rest with a clear error.
func TestDeployFlags(t *testing.T) {
	o, p, err := parseDeployFlags("https://shop.example, https://www.shop.example", "127.0.0.1, 10.0.0.0/8")
	if err != nil || len(o) != 2 || len(p) != 2 || p[0] != netip.MustParsePrefix("127.0.0.1/32") || p[1] != netip.MustParsePrefix("10.0.0.0/8") {
		t.Fatalf("%v %v %v", o, p, err)
	}
	if o, p, err := parseDeployFlags("", ""); err != nil || o != nil || p != nil {
		t.Errorf("empty: %v %v %v", o, p, err)
	}
	for _, bad := range [][2]string{{"shop.example", ""}, {"https://shop.example/path", ""}, {"ftp://x", ""},
		{"https://user@shop.example", ""}, {"https://shop.example?x=1", ""}, {"https://shop.example#top", ""}, {"", "nonsense"}, {"", "10.0.0.0/99"}} {
		if _, _, err := parseDeployFlags(bad[0], bad[1]); err == nil {
			t.Errorf("%q %q accepted", bad[0], bad[1])
		}
	}
}

// -db-pool and SHOP_DB_POOL take a positive number; anything else is an
// error, not the default in silence.
func TestPoolFlag(t *testing.T) {
	for _, c := range []struct {
		env  string
		want int
	}{{"", 16}, {"32", 32}, {" 8 ", 8}} {
		t.Setenv("SHOP_DB_POOL", c.env)
		if n, err := poolDefault(); err != nil || n != c.want {
			t.Errorf("SHOP_DB_POOL=%q: %d %v", c.env, n, err)
		}
	}
	for _, bad := range []string{"abc", "0", "-3", "1.5"} {
		t.Setenv("SHOP_DB_POOL", bad)
		if _, err := poolDefault(); err == nil {
			t.Errorf("SHOP_DB_POOL=%q accepted", bad)
		}
	}
}

// The secret is made once, beside the database, readable by its owner
// only, and read back the same at the next start; a short one is refused.
func TestSecretFile(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "shop.db")
	a, err := readSecret("", db)
	if err != nil || len(a) != 32 {
		t.Fatalf("a new secret: %d bytes, %v", len(a), err)
	}
	fi, err := os.Stat(db + ".secret")
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the secret file: %v %v", fi, err)
	}
	if b, err := readSecret("", db); err != nil || string(a) != string(b) {
		t.Fatal("the secret changed between starts")
	}
	short := filepath.Join(dir, "short")
	os.WriteFile(short, []byte("abc"), 0o600)
	if _, err := readSecret(short, db); err == nil {
		t.Fatal("a 3-byte secret was taken")
	}
}

// The printed token keeps working across restarts: a second start prints
// the same one; once it is revoked, a new one.
func TestStartToken_KeptAcrossRestarts(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db, err := shop.Open(ctx, filepath.Join(dir, "shop.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	store := shop.NewStore(db)
	store.PasswordIterations = 1000
	if err := store.Seed(ctx); err != nil {
		t.Fatal(err)
	}
	demo, _ := store.UserByEmail(ctx, shop.DemoEmail)
	path := startTokenPath("", filepath.Join(dir, "shop.db"))
	first, err := startToken(ctx, store, demo, path)
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := startToken(ctx, store, demo, path); again != first {
		t.Fatal("a restart printed another token: the exported one stops working")
	}
	toks, _ := store.Tokens(ctx, demo)
	for _, tk := range toks {
		store.RevokeToken(ctx, demo, tk.ID)
	}
	if next, _ := startToken(ctx, store, demo, path); next == first || next == "" {
		t.Fatal("a revoked token was printed again")
	}
}

// In development the shop is opened at localhost, the origin passkeys
// accept: a browser's navigation to 127.0.0.1 (a link an agent printed)
// goes there, path and query kept; an agent's requests stay where they
// are, and a shop with -origins or on another address moves nothing.
func TestLocalOrigin_NavigationsGoToLocalhost(t *testing.T) {
	if o := localOrigin("127.0.0.1:8080", nil); o != "http://localhost:8080" {
		t.Fatalf("127.0.0.1:8080: %q", o)
	}
	if o := localOrigin("[::1]:9000", nil); o != "http://localhost:9000" {
		t.Fatalf("[::1]:9000: %q", o)
	}
	for _, c := range []struct {
		addr    string
		origins []string
	}{{"127.0.0.1:8080", []string{"https://shop.example"}}, {"0.0.0.0:8080", nil}, {"10.0.0.5:8080", nil}} {
		if o := localOrigin(c.addr, c.origins); o != "" {
			t.Errorf("%s %v: %q, want none", c.addr, c.origins, o)
		}
	}
	h := toLocalhost("http://localhost:8080", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(204) }))
	for _, c := range []struct {
		method, host, mode, want string
		code                     int
	}{
		{"GET", "127.0.0.1:8080", "navigate", "http://localhost:8080/approvals/kD3?x=1", 302},
		{"GET", "localhost:8080", "navigate", "", 204},
		{"GET", "127.0.0.1:8080", "", "", 204},
		{"GET", "127.0.0.1:8080", "cors", "", 204},
		{"POST", "127.0.0.1:8080", "navigate", "", 204},
	} {
		r := httptest.NewRequest(c.method, "http://"+c.host+"/approvals/kD3?x=1", nil)
		if c.mode != "" {
			r.Header.Set("Sec-Fetch-Mode", c.mode)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != c.code || w.Header().Get("Location") != c.want {
			t.Errorf("%s %s %q: %d %q, want %d %q", c.method, c.host, c.mode, w.Code, w.Header().Get("Location"), c.code, c.want)
		}
	}
}
