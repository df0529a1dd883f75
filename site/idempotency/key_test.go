package idempotency

import "testing"

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
