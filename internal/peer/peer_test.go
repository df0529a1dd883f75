package peer

import (
	"crypto/tls"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"
)

func TestNormalizeOrigin(t *testing.T) {
	for in, want := range map[string]string{
		"https://Shop.Example:443": "https://shop.example",
		"http://shop.example:80/":  "http://shop.example",
		"http://[::1]:80":          "http://[::1]",
		"http://127.0.0.1:8080":    "http://127.0.0.1:8080",
		"ftp://shop.example":       "",
		"https://shop.example/a":   "",
		"https://u@shop.example":   "",
		"null":                     "",
	} {
		got, ok := NormalizeOrigin(in)
		if got != want || ok != (want != "") {
			t.Errorf("%q: %q %v", in, got, ok)
		}
	}
}

func TestOriginAllowed(t *testing.T) {
	r := httptest.NewRequest("POST", "http://shop.example/cart", nil)
	if o := OriginOf(r, r.TLS != nil); o.Sent || o.Allowed(nil) || o.CrossSite {
		t.Errorf("no Origin: %+v", o)
	}
	r.Header.Set("Origin", "null")
	r.Header.Set("Sec-Fetch-Site", "Cross-Site")
	if o := OriginOf(r, r.TLS != nil); !o.Sent || o.Allowed(nil) || !o.CrossSite {
		t.Errorf("Origin null from another site: %+v", o)
	}
	r.Header.Del("Sec-Fetch-Site")
	r.Header.Set("Origin", "http://shop.example")
	if !sameOrigin(r, nil) {
		t.Error("its own origin")
	}
	r.TLS = &tls.ConnectionState{}
	if sameOrigin(r, nil) {
		t.Error("http Origin on a TLS request")
	}
	r.Header.Set("Origin", "https://shop.example:443")
	if !sameOrigin(r, nil) || sameOrigin(r, []string{"https://other.example"}) || !sameOrigin(r, []string{"https://shop.example"}) {
		t.Error("https origin")
	}
	r.Header.Add("Origin", "https://shop.example")
	if o := OriginOf(r, r.TLS != nil); !o.Sent || o.Allowed(nil) {
		t.Errorf("two Origin headers: %+v", o)
	}
}

func TestClientAddr(t *testing.T) {
	proxies := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}
	r := httptest.NewRequest("GET", "/", nil)
	r.RemoteAddr = "10.0.0.2:5000"
	r.Header.Set("X-Forwarded-For", "198.51.100.7, 203.0.113.9, 10.0.0.3")
	if got := ClientAddr(r, proxies); got != "203.0.113.9" {
		t.Errorf("behind the proxies: %s", got)
	}
	if got := ClientAddr(r, nil); got != "10.0.0.2" {
		t.Errorf("no trusted proxy: %s", got)
	}
	r.Header.Set("X-Forwarded-For", "203.0.113.9, junk")
	if got := ClientAddr(r, proxies); got != "10.0.0.2" {
		t.Errorf("a hop that is no address: %s", got)
	}
	r.RemoteAddr = "192.0.2.1:5000"
	if got := ClientAddr(r, proxies); got != "192.0.2.1" {
		t.Errorf("a client that is no proxy: %s", got)
	}
}

func sameOrigin(r *http.Request, origins []string) bool {
	return OriginOf(r, r.TLS != nil).Allowed(origins)
}

func TestHTTPS_OnlyFromTrustedProxies(t *testing.T) {
	proxies := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}
	r := httptest.NewRequest("GET", "/", nil)
	r.RemoteAddr = "10.1.2.3:4000"
	if HTTPS(r, proxies) {
		t.Error("no header, no TLS")
	}
	r.Header.Set("X-Forwarded-Proto", "https")
	if !HTTPS(r, proxies) {
		t.Error("https from a trusted proxy")
	}
	r.Header.Set("X-Forwarded-Proto", "https, http") // the nearest proxy says http
	if HTTPS(r, proxies) {
		t.Error("the nearest proxy's http")
	}
	r.Header.Set("X-Forwarded-Proto", "HTTPS")
	r.RemoteAddr = "203.0.113.1:4000"
	if HTTPS(r, proxies) {
		t.Error("an untrusted address's header was believed")
	}
	r.TLS = &tls.ConnectionState{}
	if !HTTPS(r, nil) {
		t.Error("a TLS connection")
	}
}
