package botauth_test

import (
	"crypto/ed25519"
	"fmt"
	"net/http/httptest"

	"github.com/affordances-go/affordances/botauth"
)

// An agent signs a request; a site that knows its key verifies it, and a
// request replayed to another host is refused.
func Example() {
	pub, priv, _ := ed25519.GenerateKey(nil)
	signer := &botauth.Signer{Key: priv}
	site := &botauth.Verifier{Keys: []botauth.Key{{Name: "shopping-agent", Public: pub}}}

	r := httptest.NewRequest("GET", "https://shop.example/cart", nil)
	if err := signer.Sign(r); err != nil {
		panic(err)
	}
	agent, err := site.Verify(r)
	fmt.Println(agent.Name, err)

	r.Host = "other.example" // the same headers, sent elsewhere
	_, err = site.Verify(r)
	fmt.Println(err)

	unsigned := httptest.NewRequest("GET", "https://shop.example/cart", nil)
	agent, err = site.Verify(unsigned)
	fmt.Printf("%q %v\n", agent.Name, err)
	// Output:
	// shopping-agent <nil>
	// botauth: the signature does not match the request
	// "" <nil>
}
