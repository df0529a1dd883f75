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
// reading the page again.
func Delta(d protocol.Delta) string {
	var b strings.Builder
	switch {
	case d.OK:
		msg := oneLine(d.Message)
		if msg == "" {
			msg = "Done."
		}
		fmt.Fprintf(&b, "Done: %s\n", msg)
	case d.Error != nil:
		fmt.Fprintf(&b, "Not done (%s): %s\n", d.Error.Code, oneLine(d.Error.Message))
		for _, is := range d.Error.Issues {
			fmt.Fprintf(&b, "- `%s`: %s\n", oneLine(is.Path), oneLine(is.Message))
		}
		if d.ApprovalURL != "" {
			fmt.Fprintf(&b, "\nThe person decides on the approval page: <%s>\n", escapeURL(d.ApprovalURL))
		}
	default:
		b.WriteString("Not done.\n")
	}
	if d.Output != nil {
		if j, err := json.Marshal(d.Output); err == nil && string(j) != "{}" {
			fmt.Fprintf(&b, "\nOutput: `%s`\n", strings.ReplaceAll(string(j), "`", "\\u0060"))
		}
	}
	if len(d.Changed) > 0 {
		b.WriteString("\n## Changed\n\n")
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
			fmt.Fprintf(&b, "**%s**\n\n```json\n%s\n```\n\n", oneLine(k), strings.ReplaceAll(string(j), "```", "`\u200b``"))
		}
	}
	if len(d.ActionsAdded) > 0 {
		b.WriteString("\n## Actions that changed\n\n")
		for _, a := range d.ActionsAdded {
			writeAction(&b, a)
		}
	}
	if len(d.ActionsRemoved) > 0 {
		fmt.Fprintf(&b, "\nNo longer possible here: `%s`.\n", strings.Join(d.ActionsRemoved, "`, `"))
	}
	if d.Redirect != "" {
		fmt.Fprintf(&b, "\nNext page: <%s>\n", escapeURL(d.Redirect))
	}
	return strings.TrimRight(strings.ReplaceAll(b.String(), "\n\n\n", "\n\n"), "\n") + "\n"
}
