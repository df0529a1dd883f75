package idempotency

import "testing"

func TestFingerprint(t *testing.T) {
	k := []byte("0123456789abcdef")
	a := Fingerprint(k, "/cart", "add", map[string]any{"sku": "A", "qty": 1}, false, "")
	if a != Fingerprint(k, "/cart", "add", map[string]any{"qty": 1, "sku": "A"}, false, "") {
		t.Error("the same call, keys in another order")
	}
	for _, other := range []string{
		Fingerprint(k, "/cart", "add", map[string]any{"sku": "A", "qty": 2}, false, ""),
		Fingerprint(k, "/cart", "remove", map[string]any{"sku": "A", "qty": 1}, false, ""),
		Fingerprint(k, "/p", "add", map[string]any{"sku": "A", "qty": 1}, false, ""),
		Fingerprint(k, "/cart", "add", map[string]any{"sku": "A", "qty": 1}, true, ""),
		Fingerprint(k, "/cart", "add", map[string]any{"sku": "A", "qty": 1}, false, "ap1"),
		Fingerprint([]byte("another secret!!"), "/cart", "add", map[string]any{"sku": "A", "qty": 1}, false, ""),
	} {
		if other == a {
			t.Error("another call or secret, the same fingerprint")
		}
	}
}
