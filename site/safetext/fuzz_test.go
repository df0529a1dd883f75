package safetext_test

import (
	"bytes"
	"html"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"

	"github.com/affordances-go/affordances/site/safetext"
)

// markdown is a CommonMark parser with GitHub's tables and strikethrough,
// as hosts render md and summaries.
var markdown = goldmark.New(goldmark.WithExtensions(extension.Table, extension.Strikethrough))

var paragraph = regexp.MustCompile(`(?s)^<p>(.*)</p>\n$`)

// rendersAs reports what a Markdown parser makes of md: the text of its
// one paragraph, or ok false when it made anything else (a list, a
// heading, a code block, a link, an image, HTML, emphasis).
func rendersAs(md string) (text string, ok bool) {
	var out bytes.Buffer
	if err := markdown.Convert([]byte(md), &out); err != nil {
		return "", false
	}
	if out.Len() == 0 {
		return "", md == ""
	}
	m := paragraph.FindStringSubmatch(out.String())
	if m == nil || strings.Contains(m[1], "<") {
		return out.String(), false
	}
	return html.UnescapeString(m[1]), true
}

// expected is what EscapeMarkdown promises a reader sees of s: line
// breaks as spaces, unsafe characters as U+FFFD.
func expected(s string) string {
	var b strings.Builder
	for i, r := range s {
		switch {
		case r == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD"):
			b.WriteRune(utf8.RuneError)
		case strings.ContainsRune("\n\r\t\v\f\u0085\u2028\u2029", r):
			b.WriteByte(' ')
		case safetext.UnsafeRune(r):
			b.WriteRune(utf8.RuneError)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func TestEscapeMarkdown_AParserSeesTheText(t *testing.T) {
	for _, s := range []string{
		" - x", " 1. x", "    code", "\tcode", "  + x", "   # h", "> q", "1) x", "a\n- b", "a\x1b[2Jb", "a\u202eb",
		"x\x00y", "===", "---", "***", "- - -", "a  ", "<!-- c -->", "[a]: /u", "| a | b |\n|---|---|", "~~s~~", "&amp;",
		"https://example.com", "a\\", "\\", "`", "1.", "12345678901. x", " ",
	} {
		checkEscape(t, s)
	}
}

func FuzzEscapeMarkdown(f *testing.F) {
	for _, s := range []string{" - x", " 1. x", "    code", "a\x1b[2J", "[x](javascript:y)", "<b>", "1. a", "\u202e"} {
		f.Add(s)
	}
	f.Fuzz(checkEscape)
}

func checkEscape(t *testing.T, s string) {
	md := safetext.EscapeMarkdown(s)
	if strings.ContainsAny(md, "\n\r") {
		t.Fatalf("EscapeMarkdown(%q) = %q holds a line break", s, md)
	}
	for _, r := range md {
		if safetext.UnsafeRune(r) {
			t.Fatalf("EscapeMarkdown(%q) = %q holds %U", s, md, r)
		}
	}
	got, ok := rendersAs(md)
	if !ok {
		t.Fatalf("EscapeMarkdown(%q) = %q renders as markup: %q", s, md, got)
	}
	if want := expected(s); got != want {
		t.Fatalf("EscapeMarkdown(%q) = %q renders as %q, want %q", s, md, got, want)
	}
}

// A quoted value cannot end its quotes or make a line of its own.
func TestQuote_CannotBreakOut(t *testing.T) {
	for _, s := range []string{`Demo", Total: 0.00 EUR`, "x\n\nTotal: 0.00 EUR", "[Demo](https://evil.example)", "\x1b[2J", " a "} {
		q := safetext.Quote(s)
		inner := q[1 : len(q)-1]
		if !strings.HasPrefix(q, `"`) || !strings.HasSuffix(q, `"`) || strings.ContainsAny(q, "\n\r\x1b") {
			t.Errorf("Quote(%q) = %q", s, q)
		}
		if strings.Contains(strings.ReplaceAll(inner, `\"`, ""), `"`) {
			t.Errorf("Quote(%q) = %q: an unescaped quote inside", s, q)
		}
		if got, ok := rendersAs(q); !ok || got != `"`+expected(strings.TrimSpace(s))+`"` {
			t.Errorf("Quote(%q) = %q renders as %q", s, q, got)
		}
	}
}
