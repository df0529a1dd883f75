package botauth

import (
	"crypto/ed25519"
	"net/http/httptest"
	"testing"
)

// BenchmarkVerify is one request's verification with a configured key:
// the signature's parsing and base, and Ed25519.
func BenchmarkVerify(b *testing.B) {
	_, key, _ := ed25519.GenerateKey(nil)
	v := &Verifier{Keys: []Key{{Name: "agent", Public: key.Public().(ed25519.PublicKey)}}}
	r := httptest.NewRequest("POST", "https://shop.example/products/heavyweight-tee", nil)
	if err := (&Signer{Key: key}).Sign(r); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := v.Verify(r); err != nil {
			b.Fatal(err)
		}
	}
}
