package site

import "strings"

// EscapeMarkdown returns s as Markdown text that renders as exactly s:
// every character Markdown or HTML could read as markup (emphasis, code,
// links and images, raw HTML, entities, headings, tables, strikethrough)
// is escaped with a backslash, a list or heading marker at the start is
// escaped too, and line breaks become spaces, so the text stays inline.
//
// Use it for any text a user wrote, or could have, that a page puts in
// State.MD or in a confirmation summary: a search query, a name, a label.
// A client that renders the page's md then shows the text, never a script,
// an image or a javascript: link.
//
//	st.MD = "Search: " + site.EscapeMarkdown(q)
func EscapeMarkdown(s string) string {
	var b strings.Builder
	b.Grow(len(s) + len(s)/8)
	digits := true // only digits so far: "1." would start a list
	for i, r := range s {
		switch {
		case strings.ContainsRune("\\`*_{}[]()<>#!|~&", r),
			i == 0 && strings.ContainsRune("-+=", r),
			digits && i > 0 && r == '.':
			b.WriteByte('\\')
			b.WriteRune(r)
		case strings.ContainsRune("\n\r\t\v\f\u2028\u2029", r):
			b.WriteByte(' ')
		default:
			b.WriteRune(r)
		}
		digits = digits && r >= '0' && r <= '9'
	}
	return b.String()
}
