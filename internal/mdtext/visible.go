package mdtext

import (
	"fmt"
	"strings"
)

// Visible returns s with every character that could make a person misread
// it written as its code point, "⟨U+02BA⟩": look-alikes of the quotes
// that [Quote] puts around a value (so that a value cannot seem to end
// and the site's text to go on), and characters a person cannot see
// (zero-width spaces and joiners, bidirectional marks, overrides and
// isolates, invisible fillers, variation selectors, tag characters). The
// rest of s, letters of every script included, is left as it is.
func Visible(s string) string {
	if !strings.ContainsFunc(s, hidden) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if hidden(r) {
			fmt.Fprintf(&b, "⟨U+%04X⟩", r)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// hidden reports the characters Visible writes as code points.
func hidden(r rune) bool {
	switch r {
	// Look-alikes of " and of the primes that, two together, read as one.
	case '\u02BA', '\u02DD', '\u02EE', '\u2033', '\u2036', '\u201C', '\u201D', '\u201E', '\u201F',
		'\uFF02', '\u3003', '\u05F4', '\u02B9', '\u2032', '\u2035', '\u02C8', '\u030B', '\u030E', '\u3011', '\u275D', '\u275E',
		'\u301D', '\u301E', '\u301F':
		return true
	// Invisible: soft hyphen, combining grapheme joiner, Arabic letter
	// mark, Hangul fillers, Mongolian vowel separator, the byte order mark.
	case '\u00AD', '\u034F', '\u061C', '\u115F', '\u1160', '\u3164', '\uFFA0', '\u180E', '\uFEFF':
		return true
	}
	switch {
	case r >= 0x200B && r <= 0x200F, // zero-width space, joiners, LRM, RLM
		r >= 0x202A && r <= 0x202E,   // bidirectional embeddings and overrides
		r >= 0x2060 && r <= 0x206F,   // word joiner, invisible operators, isolates, deprecated format
		r >= 0xFE00 && r <= 0xFE0F,   // variation selectors
		r >= 0xE0000 && r <= 0xE007F, // tag characters
		r >= 0xE0100 && r <= 0xE01EF: // variation selectors supplement
		return true
	}
	return false
}
