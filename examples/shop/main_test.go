package main

import (
	"net/netip"
	"testing"
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
	for _, bad := range [][2]string{{"shop.example", ""}, {"https://shop.example/path", ""}, {"ftp://x", ""}, {"", "nonsense"}, {"", "10.0.0.0/99"}} {
		if _, _, err := parseDeployFlags(bad[0], bad[1]); err == nil {
			t.Errorf("%q %q accepted", bad[0], bad[1])
		}
	}
}
