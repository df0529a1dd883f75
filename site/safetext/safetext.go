// Package safetext shows text that an agent or a caller wrote to the
// person who must read it, as data: in Markdown that renders as exactly
// the text, in quotes it cannot end, with look-alike quotes, bidirectional
// controls and invisible characters made visible. A page's Markdown, a
// confirm action's summary, an approval page and an input's own checks
// use it, so that nothing a caller writes can pass for the site's words
// or hide part of itself.
package safetext

import "github.com/affordances-go/affordances/internal/mdtext"

// EscapeMarkdown returns s as Markdown text that renders as exactly s,
// inline: every character Markdown or HTML could read as markup is
// escaped, line breaks become spaces, spaces at either end become
// character references, and control characters and bidirectional
// overrides become U+FFFD. Use it for any text a user could have written
// that a page puts in State.MD or a summary; for a value inside a
// summary prefer [Quote].
//
//	st.MD = "Search: " + safetext.EscapeMarkdown(q)
func EscapeMarkdown(s string) string { return mdtext.Escape(s) }

// Quote returns a value a caller supplied (a name, a street, a label) as
// it may appear in a summary a person approves: trimmed, escaped as
// [EscapeMarkdown] does, in double quotes it cannot end. Whatever it
// holds, it cannot start a line or pass for the site's own text.
//
//	fmt.Sprintf("Deliver to %s.", safetext.Quote(in.Name))
func Quote(s string) string { return mdtext.Quote(s) }

// ShowAsData returns text an agent supplied as a person must read it,
// as data: look-alikes of quotes ("ʺ", U+02BA, and the like),
// bidirectional controls and invisible characters written as their code
// points, "⟨U+02BA⟩", so that a value cannot pass for the site's text or
// hide part of itself. [Quote] does the same inside its quotes.
func ShowAsData(s string) string { return mdtext.Visible(s) }

// UnsafeRune reports whether r must never reach a person's screen from a
// caller's text: a control character (C0, DEL, C1) or a bidirectional
// override or isolate that could reorder what the person reads. Inputs
// that end up in a summary refuse them; [EscapeMarkdown] and [Quote]
// replace them.
func UnsafeRune(r rune) bool { return mdtext.UnsafeRune(r) }

// HasUnsafe reports whether s holds an [UnsafeRune] or is not valid
// UTF-8: an input that a person will read refuses it.
func HasUnsafe(s string) bool { return mdtext.HasUnsafe(s) }
