package site

import "github.com/affordances-go/affordances/internal/mdtext"

// EscapeMarkdown returns s as Markdown text that renders as exactly s,
// inline: every character Markdown or HTML could read as markup is
// escaped, line breaks become spaces, spaces at either end become
// character references, and control characters and bidirectional
// overrides become U+FFFD. Use it for any text a user could have written
// that a page puts in State.MD or a summary; for a value inside a
// summary prefer [Quote].
//
//	st.MD = "Search: " + site.EscapeMarkdown(q)
func EscapeMarkdown(s string) string { return mdtext.Escape(s) }

// Quote returns a value a caller supplied (a name, a street, a label) as
// it may appear in a summary a person approves: trimmed, escaped as
// [EscapeMarkdown] does, in double quotes it cannot end. Whatever it
// holds, it cannot start a line or pass for the site's own text.
//
//	fmt.Sprintf("Deliver to %s.", site.Quote(in.Name))
func Quote(s string) string { return mdtext.Quote(s) }

// UnsafeRune reports whether r must never reach a person's screen from a
// caller's text: a control character (C0, DEL, C1) or a bidirectional
// override or isolate that could reorder what the person reads. Inputs
// that end up in a summary refuse them; [EscapeMarkdown] and [Quote]
// replace them.
func UnsafeRune(r rune) bool { return mdtext.UnsafeRune(r) }

// HasUnsafeText reports whether s holds an [UnsafeRune] or is not valid
// UTF-8.
func HasUnsafeText(s string) bool { return mdtext.HasUnsafe(s) }
