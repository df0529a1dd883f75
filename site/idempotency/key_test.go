package idempotency

import (
	"strings"
	"testing"
)

func TestValidKey(t *testing.T) {
	for k, want := range map[string]bool{"a": true, "order-7f3c": true, strings.Repeat("k", 255): true,
		"": false, strings.Repeat("k", 256): false, "two words": false, "é": false, "tab\t": false} {
		if ValidKey(k) != want {
			t.Errorf("ValidKey(%q) = %v", k, !want)
		}
	}
}

func TestFingerprint(t *testing.T) {
	a := Fingerprint("/cart", "add", map[string]any{"sku": "A", "qty": 1}, false, "")
	if a != Fingerprint("/cart", "add", map[string]any{"qty": 1, "sku": "A"}, false, "") {
		t.Error("the same call, keys in another order")
	}
	for _, other := range []string{
		Fingerprint("/cart", "add", map[string]any{"sku": "A", "qty": 2}, false, ""),
		Fingerprint("/cart", "remove", map[string]any{"sku": "A", "qty": 1}, false, ""),
		Fingerprint("/p", "add", map[string]any{"sku": "A", "qty": 1}, false, ""),
		Fingerprint("/cart", "add", map[string]any{"sku": "A", "qty": 1}, true, ""),
		Fingerprint("/cart", "add", map[string]any{"sku": "A", "qty": 1}, false, "ap1"),
	} {
		if other == a {
			t.Error("another call, the same fingerprint")
		}
	}
}
