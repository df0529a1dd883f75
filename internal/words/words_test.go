package words

import "testing"

func TestFromIdentifier(t *testing.T) {
	for in, want := range map[string]string{
		"addToCart":        "Add to cart",
		"shipping_address": "Shipping address",
		"sign-in":          "Sign in",
		"a.b":              "A b",
		"éclairAuChocolat": "Éclair au chocolat",
		"":                 "",
	} {
		if got := FromIdentifier(in); got != want {
			t.Errorf("%q: %q, want %q", in, got, want)
		}
	}
}
