// Package doccheck checks that a guide shows compiled code: every code
// block of a Markdown file, in the languages asked for, is line for line
// in the given source files, indentation aside.
package doccheck

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// BlocksAreIn fails the test for every code block of guide in one of
// langs (such as "go", "html") that is not, line for line, in files; and
// when the guide has fewer than atLeast such blocks (a guide whose blocks
// moved to another fence).
func BlocksAreIn(t testing.TB, guide string, langs []string, atLeast int, files ...string) {
	t.Helper()
	var code strings.Builder
	for _, f := range files {
		code.WriteString(normalize(read(t, f)))
	}
	blocks := regexp.MustCompile("(?s)```("+strings.Join(langs, "|")+")\n(.*?)```").FindAllStringSubmatch(read(t, guide), -1)
	if len(blocks) < atLeast {
		t.Fatalf("found %d code blocks in %s, want at least %d", len(blocks), guide, atLeast)
	}
	for _, b := range blocks {
		if !strings.Contains(code.String(), normalize(b[2])) {
			t.Errorf("this block of %s is not in the compiled code:\n%s", guide, b[2])
		}
	}
}

func read(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// normalize drops indentation, so that a fragment shown at the top level
// of a guide matches the same lines inside a function.
func normalize(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSpace(l)
	}
	return strings.Join(lines, "\n")
}
