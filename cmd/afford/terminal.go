package main

import (
	"io"
	"strings"
	"unicode/utf8"

	"github.com/affordances-go/affordances/site/safetext"
)

// safeWriter is what afford writes everything through: a server's text (a
// name anyone can sign up with, a summary, a message) must not reach the
// terminal as control sequences that repaint the screen, move the cursor
// around the Confirm? prompt, or reorder what the person reads. Control
// characters but for newline and tab (C0, DEL, C1), bidirectional
// overrides and isolates, and bytes that are not UTF-8 are written as
// U+FFFD. afford itself writes no control sequences.
type safeWriter struct{ w io.Writer }

func (s safeWriter) Write(p []byte) (int, error) {
	if clean(p) {
		return s.w.Write(p)
	}
	out := strings.Map(func(r rune) rune {
		if r != '\n' && r != '\t' && safetext.UnsafeRune(r) {
			return utf8.RuneError
		}
		return r
	}, strings.ToValidUTF8(string(p), "\uFFFD"))
	if _, err := io.WriteString(s.w, out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// clean reports whether p can be written as it is: ASCII text with no
// control character but newline and tab (the common case, checked fast).
func clean(p []byte) bool {
	for _, b := range p {
		if b >= 0x7f || (b < 0x20 && b != '\n' && b != '\t') {
			return false
		}
	}
	return true
}

// indent indents every line of a text after the first by two spaces, as
// afford lays out a multi-line summary.
func indent(s string) string { return strings.ReplaceAll(s, "\n", "\n  ") }
