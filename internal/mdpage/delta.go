package mdpage

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/affordances-go/affordances/protocol"
)

// Delta writes what a call did as Markdown, for an agent that reads
// results rather than parses them (a WebMCP tool's result): its outcome
// and message, the entities that changed (compact JSON, which is what the
// delta says), the actions that became available or went away, and where
// to go next. It is what the agent needs to see the outcome without
// reading the page again. The actions that changed are written as Render
// writes them for run.
func Delta(d protocol.Delta, run Runner) string {
	var sections []string // each without its trailing newline, joined by a blank line
	var b strings.Builder
	switch {
	case d.OK:
		msg := oneLine(d.Message)
		if msg == "" {
			msg = "Done."
		}
		fmt.Fprintf(&b, "Done: %s", msg)
	case d.Error != nil:
		fmt.Fprintf(&b, "Not done (%s): %s", d.Error.Code, oneLine(d.Error.Message))
		for _, is := range d.Error.Issues {
			fmt.Fprintf(&b, "\n- `%s`: %s", oneLine(is.Path), oneLine(is.Message))
		}
	default:
		b.WriteString("Not done.")
	}
	sections = append(sections, b.String())
	if d.Error != nil && d.ApprovalURL != "" {
		sections = append(sections, fmt.Sprintf("The person decides on the approval page: <%s>", escapeURL(d.ApprovalURL)))
	}
	if d.Output != nil {
		if j, err := json.Marshal(d.Output); err == nil && string(j) != "{}" {
			sections = append(sections, fmt.Sprintf("Output: `%s`", strings.ReplaceAll(string(j), "`", "\\u0060")))
		}
	}
	if len(d.Changed) > 0 {
		sections = append(sections, "## Changed")
		names := make([]string, 0, len(d.Changed))
		for k := range d.Changed {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, k := range names {
			j, err := json.Marshal(d.Changed[k])
			if err != nil {
				continue
			}
			sections = append(sections, "**"+oneLine(k)+"**", "```json\n"+strings.ReplaceAll(string(j), "```", "`\u200b``")+"\n```")
		}
	}
	if len(d.ActionsAdded) > 0 {
		var a strings.Builder
		for _, ad := range d.ActionsAdded {
			writeAction(&a, ad, run)
		}
		sections = append(sections, "## Actions that changed", strings.TrimRight(a.String(), "\n"))
	}
	if len(d.ActionsRemoved) > 0 {
		sections = append(sections, fmt.Sprintf("No longer possible here: `%s`.", strings.Join(d.ActionsRemoved, "`, `")))
	}
	if d.Redirect != "" {
		sections = append(sections, fmt.Sprintf("Next page: <%s>", escapeURL(d.Redirect)))
	}
	return strings.Join(sections, "\n\n") + "\n"
}
