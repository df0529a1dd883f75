// Package mdpage writes a page's graph as a Markdown document, for an
// agent that asks for text/markdown: the page's own md (or its entities
// when it has none), then its actions and its links, short and readable,
// with what an agent needs to call an action.
package mdpage

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/affordances-go/affordances/internal/words"
	"github.com/affordances-go/affordances/protocol"
)

// Runner says how the reader of a page runs its actions, which decides
// how Render writes them: with their inputs or not, under which tool's
// name, and the line after them that says how to run one.
type Runner struct {
	// Inputs writes each action's input in words, for a reader that
	// sends it (a POST, a generic tool); one whose tools carry their own
	// schemas needs none.
	Inputs bool
	// Tool, when set, names the tool that runs an action on this page,
	// written beside the action when the two names differ.
	Tool func(action string) string
	// How is the line after the actions; none when empty.
	How string
}

// The two readers of a page's Markdown over HTTP: an agent that POSTs its
// calls to the page, and one that calls the page's actions as tools
// carrying their inputs (WebMCP).
var (
	Post      = Runner{Inputs: true, How: "To run an action, POST `{\"action\": NAME, \"input\": {…}}` to this page with `Content-Type: " + protocol.MediaType + "`."}
	PageTools = Runner{How: "Each action available now is one of this page's tools, by its name."}
)

// Over is the runner of a Markdown answer over HTTP: the page's tools for
// a reader that asked for them (WebMCP), else a POST.
func Over(tools bool) Runner {
	if tools {
		return PageTools
	}
	return Post
}

// Render writes g as Markdown for a reader that runs its actions as run
// says. title heads the document when the page's md does not start with a
// heading of its own.
func Render(g protocol.Graph, title string, run Runner) string {
	var b strings.Builder
	md := strings.TrimSpace(g.MD)
	if !strings.HasPrefix(md, "# ") {
		fmt.Fprintf(&b, "# %s\n\n", oneLine(title))
	}
	if md != "" {
		b.WriteString(md)
		b.WriteString("\n\n")
	} else if len(g.Entities) > 0 {
		writeEntities(&b, g.Entities)
	}
	if len(g.Actions) > 0 {
		b.WriteString("## Actions\n\n")
		for _, a := range g.Actions {
			writeAction(&b, a, run)
		}
		if run.How != "" {
			b.WriteString("\n" + run.How + "\n\n")
		}
	}
	if nav := linksToList(g.Nav, md); len(nav) > 0 {
		b.WriteString("## Links\n\n")
		for _, n := range nav {
			label := n.Label
			if label == "" {
				label = n.To
			}
			fmt.Fprintf(&b, "- [%s](%s)", escapeLinkText(label), escapeURL(n.To))
			if n.When != "" {
				fmt.Fprintf(&b, ", when %s", oneLine(n.When))
			}
			b.WriteString("\n")
		}
		b.WriteString("\n")
	}
	return strings.TrimRight(b.String(), "\n") + "\n"
}

// linksToList are the page's links the Links section lists: all but a
// link the page's md shows already, to the same target and without a
// condition, which would only repeat it (a catalog's products, say).
func linksToList(nav []protocol.Nav, md string) []protocol.Nav {
	if md == "" || !strings.Contains(md, "](") {
		return nav
	}
	out := nav[:0:0]
	for _, n := range nav {
		if n.When == "" && strings.Contains(md, "]("+n.To+")") {
			continue
		}
		out = append(out, n)
	}
	return out
}

// writeEntities writes a page without md of its own: its entities as
// JSON, which is what the graph says too.
func writeEntities(b *strings.Builder, entities map[string]any) {
	names := make([]string, 0, len(entities))
	for k := range entities {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		j, err := json.MarshalIndent(entities[k], "", "  ")
		if err != nil {
			continue
		}
		fmt.Fprintf(b, "**%s**\n\n```json\n%s\n```\n\n", oneLine(k), strings.ReplaceAll(string(j), "```", "`\u200b``"))
	}
}

// writeAction writes one action as a list item: its name (and its tool's,
// when another), what it does, whether it can run now and why not, who
// may run it, and its input (Runner.Inputs).
func writeAction(b *strings.Builder, a protocol.ActionDescriptor, run Runner) {
	fmt.Fprintf(b, "- `%s`", a.Name)
	if run.Tool != nil {
		if t := run.Tool(a.Name); t != "" && t != a.Name {
			fmt.Fprintf(b, " (tool `%s`)", t)
		}
	}
	if a.Description != "" {
		fmt.Fprintf(b, ": %s", oneLine(a.Description))
	}
	switch {
	case a.Available:
		b.WriteString(". Available")
	case a.Reason != "":
		fmt.Fprintf(b, ". Not available: %s", oneLine(a.Reason))
	default:
		b.WriteString(". Not available")
	}
	if a.Guard != "" {
		fmt.Fprintf(b, " (when %s)", oneLine(a.Guard))
	}
	writeNeeds(b, a.Expose)
	if run.Inputs { // a tool has its input's schema itself: no need to read it
		if in := inputWords(a.Input); in != "" {
			b.WriteString(". Input: " + in)
		}
	}
	b.WriteString(".\n")
}

// writeNeeds writes who may run an action of expose, after its
// description: nothing for a public one.
func writeNeeds(b *strings.Builder, expose protocol.Expose) {
	switch expose {
	case protocol.ExposeSession:
		b.WriteString("; needs a signed-in caller")
	case protocol.ExposeConfirm:
		b.WriteString("; needs a signed-in caller and the person's confirmation")
	}
}

// inputWords describes an input schema's properties in a line, each as
// afford describes it (words.Property).
func inputWords(raw json.RawMessage) string {
	var s struct {
		Properties map[string]words.Property `json:"properties"`
		Required   []string                  `json:"required"`
	}
	if json.Unmarshal(raw, &s) != nil || len(s.Properties) == 0 {
		return ""
	}
	names := make([]string, 0, len(s.Properties))
	for k := range s.Properties {
		names = append(names, k)
	}
	sort.Strings(names)
	parts := make([]string, 0, len(names))
	for _, k := range names {
		w := "`" + k + "`"
		if d := s.Properties[k].Describe(slices.Contains(s.Required, k)); d != "" {
			w += " (" + oneLine(d) + ")"
		}
		parts = append(parts, w)
	}
	return strings.Join(parts, ", ")
}

// oneLine keeps a text on one line and keeps it from opening markup of
// its own at the start of a list item or a heading.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	return angleEscapes.Replace(s)
}

func escapeLinkText(s string) string {
	return bracketEscapes.Replace(oneLine(s))
}

func escapeURL(s string) string {
	return urlEscapes.Replace(s)
}

// The escapes, built once.
var (
	angleEscapes   = strings.NewReplacer("<", "&lt;", ">", "&gt;")
	bracketEscapes = strings.NewReplacer("[", `\[`, "]", `\]`)
	urlEscapes     = strings.NewReplacer(" ", "%20", "(", "%28", ")", "%29", "<", "%3C", ">", "%3E")
)
