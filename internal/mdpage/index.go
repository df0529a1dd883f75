package mdpage

import (
	"fmt"
	"strings"

	"github.com/affordances-go/affordances/protocol"
)

// Index writes a site index as Markdown, for a model that plans a task
// from it (the MCP siteIndex tool): each route with what it is for, then
// its actions with who may run them, their precondition and their input
// in a line, as a page's Markdown writes them. A route with parameters
// is called on a concrete page of it (/products/[slug] as
// /products/heavyweight-tee).
func Index(idx protocol.SiteIndex) string {
	var b strings.Builder
	name := idx.Name
	if name == "" {
		name = "This site"
	}
	fmt.Fprintf(&b, "# %s: routes and actions\n\n", oneLine(name))
	for _, r := range idx.Routes {
		fmt.Fprintf(&b, "## %s\n\n", escapeURL(r.Route))
		if r.Description != "" {
			fmt.Fprintf(&b, "%s\n\n", oneLine(r.Description))
		}
		for _, a := range r.Actions {
			writeSummary(&b, a)
		}
		if len(r.Actions) > 0 {
			b.WriteString("\n")
		}
	}
	return strings.TrimRight(b.String(), "\n") + "\n"
}

// writeSummary writes one action of the index in the words writeAction
// has for one of a page, without its availability, which the index does
// not know: its name, what it does, who may run it, its precondition and
// its input.
func writeSummary(b *strings.Builder, a protocol.ActionSummary) {
	fmt.Fprintf(b, "- `%s`", a.Name)
	if a.Description != "" {
		fmt.Fprintf(b, ": %s", oneLine(a.Description))
	}
	writeNeeds(b, a.Expose)
	if a.Expose == protocol.ExposeConfirm && a.Approval {
		b.WriteString(" on the site")
	}
	if a.Guard != "" {
		fmt.Fprintf(b, " (when %s)", oneLine(a.Guard))
	}
	if in := inputWords(a.Input); in != "" {
		b.WriteString(". Input: " + in)
	}
	b.WriteString(".\n")
}

// IndexActions reads back, from a text Index wrote, each action's name
// with its route, in the order listed: what a program that reads the
// siteIndex tool (the conformance checker, the benchmark's agent) needs
// of it. Lines that are not a route's heading or an action's item are
// passed over.
func IndexActions(text string) [][2]string {
	var out [][2]string
	route := ""
	for line := range strings.SplitSeq(text, "\n") {
		switch {
		case strings.HasPrefix(line, "## "):
			route = strings.TrimSpace(line[3:])
		case strings.HasPrefix(line, "- `") && route != "":
			if name, _, ok := strings.Cut(line[3:], "`"); ok && name != "" {
				out = append(out, [2]string{route, name})
			}
		}
	}
	return out
}
