package safetext_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/affordances-go/affordances/site/safetext"
)

func TestEscapeMarkdown_UserTextCannotBecomeMarkup(t *testing.T) {
	for in, want := range map[string]string{
		`<img src=x onerror=alert(1)>`:    `\<img src=x onerror=alert\(1\)\>`,
		`[click](javascript:alert(1))`:    `\[click\]\(javascript:alert\(1\)\)`,
		`![x](http://evil/x.png)`:         `\!\[x\]\(http://evil/x.png\)`,
		"# title\n- item":                 `\# title - item`,
		"- item":                          `\- item`,
		"1. first":                        `1\. first`,
		"heavy-weight tee, size 1.5":      `heavy-weight tee, size 1.5`,
		"a *b* _c_ `d` ~e~ |f| &amp; \\g": `a \*b\* \_c\_ \` + "`" + `d\` + "`" + ` \~e\~ \|f\| \&amp; \\g`,
	} {
		if got := safetext.EscapeMarkdown(in); got != want {
			t.Errorf("EscapeMarkdown(%q) = %q, want %q", in, got, want)
		}
		if strings.ContainsAny(safetext.EscapeMarkdown(in), "\n\r") {
			t.Errorf("a line break survived in %q", in)
		}
	}
}

func ExampleEscapeMarkdown() {
	q := "<script>alert(1)</script> [x](javascript:y)"
	fmt.Println("Search: " + safetext.EscapeMarkdown(q))
	// Output:
	// Search: \<script\>alert\(1\)\</script\> \[x\]\(javascript:y\)
}
