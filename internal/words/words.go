// Package words writes identifiers as words, in one place for every
// surface that shows an action or a field to a person: addToCart becomes
// "Add to cart", shipping_address "Shipping address".
package words

import (
	"strings"
	"unicode"
)

// FromIdentifier writes a camelCase, snake_case, kebab-case or dotted
// identifier as words, the first capitalised.
func FromIdentifier(s string) string {
	var b strings.Builder
	for i, r := range s {
		switch {
		case i == 0:
			b.WriteRune(unicode.ToUpper(r))
		case unicode.IsUpper(r):
			b.WriteByte(' ')
			b.WriteRune(unicode.ToLower(r))
		case r == '_' || r == '-' || r == '.':
			b.WriteByte(' ')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
