package main

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/affordances-go/affordances/internal/words"
	"github.com/affordances-go/affordances/protocol"
)

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// printGraph shows a page for a person about to act on it: the page's own
// Markdown first, then every entity in full (long lists fold unless
// full), the actions, and where to go next.
func printGraph(w io.Writer, g *protocol.Graph, full bool) {
	fmt.Fprintf(w, "%s  (route %s)\n", g.Page, g.Route)
	if md := strings.TrimSpace(g.MD); md != "" {
		fmt.Fprintf(w, "\n%s\n", md)
	}
	if len(g.Entities) > 0 {
		fmt.Fprintln(w, "\nEntities")
		for _, k := range sortedKeys(g.Entities) {
			renderEntity(w, "  ", k, g.Entities[k], full)
		}
	}
	fmt.Fprintln(w, "\nActions")
	if len(g.Actions) == 0 {
		fmt.Fprintln(w, "  (none)")
	} else {
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "  NAME\tEXPOSE\tAVAILABLE\tINPUT\tREASON")
		for _, a := range g.Actions {
			avail := "yes"
			if !a.Available {
				avail = "no"
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\n", a.Name, a.Expose, avail, inputSummary(a.Input), a.Reason)
		}
		tw.Flush()
		printInputs(w, g.Actions)
	}
	if len(g.Nav) > 0 {
		fmt.Fprintln(w, "\nNav")
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		for _, n := range g.Nav {
			when := ""
			if n.When != "" {
				when = "(" + n.When + ")"
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\n", n.To, n.Label, when)
		}
		tw.Flush()
	}
}

// inputSummary lists an input schema's properties, required ones first,
// optional ones with a question mark.
func inputSummary(raw json.RawMessage) string {
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
	}
	if json.Unmarshal(raw, &s) != nil || len(s.Properties) == 0 {
		return "-"
	}
	req := map[string]bool{}
	var parts []string
	for _, r := range s.Required {
		req[r] = true
		if _, ok := s.Properties[r]; ok {
			parts = append(parts, r)
		}
	}
	for _, k := range sortedKeys(s.Properties) {
		if !req[k] {
			parts = append(parts, k+"?")
		}
	}
	return strings.Join(parts, " ")
}

// printInputs shows, for each action with an input, what each property
// takes: its type, bounds, pattern or values, an example and the default.
func printInputs(w io.Writer, actions []protocol.ActionDescriptor) {
	header := false
	for _, a := range actions {
		var s struct {
			Properties map[string]words.Property `json:"properties"`
			Required   []string                  `json:"required"`
		}
		if json.Unmarshal(a.Input, &s) != nil || len(s.Properties) == 0 {
			continue
		}
		if !header {
			fmt.Fprintln(w, "\nInputs")
			header = true
		}
		fmt.Fprintf(w, "  %s\n", a.Name)
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		for _, k := range sortedKeys(s.Properties) {
			fmt.Fprintf(tw, "    %s\t%s\n", k, s.Properties[k].Describe(slices.Contains(s.Required, k)))
		}
		tw.Flush()
	}
}

func printIndex(w io.Writer, idx *protocol.SiteIndex) {
	name := idx.Name
	if name == "" {
		name = "(unnamed site)"
	}
	auth := make([]string, len(idx.Auth))
	for i, a := range idx.Auth {
		auth[i] = string(a)
	}
	authText := strings.Join(auth, ", ")
	if authText == "" {
		authText = "none"
	}
	fmt.Fprintf(w, "%s  protocol v%s  auth: %s\n", name, idx.V, authText)
	if idx.MCP != "" {
		fmt.Fprintf(w, "MCP: %s\n", idx.MCP)
	}
	for _, r := range idx.Routes {
		fmt.Fprintf(w, "\n%s", r.Route)
		if r.Description != "" {
			fmt.Fprintf(w, "  %s", r.Description)
		}
		fmt.Fprintln(w)
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		for _, a := range r.Actions {
			guard := ""
			if a.Guard != "" {
				guard = "when " + a.Guard
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", a.Name, a.Expose, inputSummary(a.Input), guard)
		}
		tw.Flush()
	}
}

func printDelta(w io.Writer, d *protocol.Delta) {
	msg := d.Message
	if msg == "" {
		msg = "done"
	}
	fmt.Fprintf(w, "ok: %s\n", msg)
	if d.Output != nil {
		renderEntity(w, "", "output", d.Output, true)
	}
	for _, k := range sortedKeys(d.Changed) {
		renderEntity(w, "", "changed "+k, d.Changed[k], true)
	}
	for _, a := range d.ActionsAdded {
		state := "available"
		if !a.Available {
			state = "unavailable: " + a.Reason
		}
		fmt.Fprintf(w, "action %s is now %s\n", a.Name, state)
	}
	for _, n := range d.ActionsRemoved {
		fmt.Fprintf(w, "action %s is gone\n", n)
	}
	if d.Redirect != "" {
		fmt.Fprintf(w, "next: %s\n", d.Redirect)
	}
}
