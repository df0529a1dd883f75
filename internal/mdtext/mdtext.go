// Package mdtext writes text a caller supplied into Markdown a person
// reads, so that it shows as the text it is: package site exports it as
// site.Escape, site.Quote, site.UnsafeRune and site.HasUnsafe.
package mdtext

import (
	"strings"
	"unicode/utf8"
)

// Escape returns s as Markdown text that renders as exactly s:
// every character Markdown or HTML could read as markup (emphasis, code,
// links and images, raw HTML, entities, headings, tables, strikethrough)
// is escaped with a backslash; a list, heading or code-block start is
// escaped too, including after leading spaces (which are written as
// character references, so they neither indent nor vanish); line breaks
// become spaces, so the text stays inline; and control characters
// (C0, DEL, C1) and the bidirectional overrides and isolates that could
// reorder what a reader sees become U+FFFD.
//
// Use it for any text a user wrote, or could have, that a page puts in
// State.MD or in a confirmation summary: a search query, a name, a label.
// A client that renders the page's md then shows the text, never a script,
// an image or a javascript: link. For a value inside a summary, prefer
// [Quote], whose quotes show where the value starts and ends.
//
//	st.MD = "Search: " + mdtext.Escape(q)
func Escape(s string) string {
	var b strings.Builder
	b.Grow(len(s) + len(s)/8)
	// Spaces at either end are written as references: a parser would
	// drop them, or read four of them as a code block.
	// (Every character that becomes a space counts, NEL and the Unicode
	// line separators too, and each is one reference.)
	rest := strings.TrimLeftFunc(s, isBreakOrSpace)
	lead := len(s) - len(rest)
	trail := len(rest) - len(strings.TrimRightFunc(rest, isBreakOrSpace))
	for range utf8.RuneCountInString(s[:lead]) {
		b.WriteString("&#32;")
	}
	body := s[lead : len(s)-trail]
	digits := true // only digits so far: "1." would start a list
	for i, r := range body {
		switch {
		case r == utf8.RuneError && !strings.HasPrefix(body[i:], "\uFFFD"):
			b.WriteRune(utf8.RuneError) // a byte that is not UTF-8
		case strings.ContainsRune("\\`*_{}[]()<>#!|~&", r),
			i == 0 && strings.ContainsRune("-+=", r),
			digits && i > 0 && r == '.':
			b.WriteByte('\\')
			b.WriteRune(r)
		case isBreakOrSpace(r):
			b.WriteByte(' ')
		case UnsafeRune(r):
			b.WriteRune(utf8.RuneError)
		default:
			b.WriteRune(r)
		}
		digits = digits && r >= '0' && r <= '9'
	}
	for range utf8.RuneCountInString(s[len(s)-trail:]) {
		b.WriteString("&#32;")
	}
	return b.String()
}

// isBreakOrSpace reports the characters Escape writes as a space.
func isBreakOrSpace(r rune) bool {
	return r == ' ' || strings.ContainsRune("\n\r\t\v\f\u0085\u2028\u2029", r)
}

// Quote returns a value a caller supplied (a name, a street, a label) as
// it may appear in a summary a person approves: in double quotes, its
// spaces at either end trimmed, escaped as [Escape] does, with any double
// quote inside escaped too, and look-alike quotes and invisible characters
// written as their code points ([Visible]). Whatever the value holds, it
// cannot end the quotes, start a line, or look like the site's own text
// ("Total: 0.00 EUR"), in plain text or rendered as Markdown.
//
//	fmt.Sprintf("Deliver to %s.", mdtext.Quote(in.Name))
func Quote(s string) string {
	return `"` + strings.ReplaceAll(Escape(Visible(strings.TrimSpace(s))), `"`, `\"`) + `"`
}

// UnsafeRune reports whether r must never reach a person's screen from a
// caller's text: a control character (C0 but for none, DEL, C1), or a
// bidirectional override or isolate (U+202A–U+202E, U+2066–U+2069) that
// could reorder what the person reads. Inputs that end up in a summary
// refuse them; [Escape] and [Quote] replace them.
func UnsafeRune(r rune) bool {
	return r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) ||
		(r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069)
}

// HasUnsafe reports whether s holds an [UnsafeRune] or is not valid
// UTF-8.
func HasUnsafe(s string) bool {
	if !utf8.ValidString(s) {
		return true
	}
	for _, r := range s {
		if UnsafeRune(r) {
			return true
		}
	}
	return false
}
