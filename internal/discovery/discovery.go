// Package discovery writes the site's discovery files from its index:
// /llms.txt, Markdown for language models, and the Agentic Resource
// Discovery catalog. Each is made from the index as an anonymous caller
// sees it; package site decides when to serve them and with which
// headers.
package discovery

import (
	"fmt"
	"strings"

	"github.com/affordances-go/affordances/internal/mdtext"
	"github.com/affordances-go/affordances/protocol"
)

// Site is what the files say of a site beside its index.
type Site struct {
	// Name is the site's configured name ("" when none).
	Name string
	// Host names the site when it has no name: the request's host.
	Host string
	// Origin is the site's origin, for the files' links.
	Origin string
	// Description is the site in a sentence.
	Description string
	// Queries are the configured questions for the catalog, if any.
	Queries []string
	// DoorLines are the doors' lines under "For agents" in llms.txt.
	DoorLines []string
	// CatalogPath is the catalog's path when the site serves it, else "".
	CatalogPath string
}

// LLMsTxt writes /llms.txt from the index.
func LLMsTxt(idx protocol.SiteIndex, s Site) string {
	var b strings.Builder
	name := idx.Name
	if name == "" {
		name = s.Host
	}
	fmt.Fprintf(&b, "# %s\n\n> %s\n\n", mdtext.Escape(name), mdtext.Escape(s.Description))
	b.WriteString("Each page below answers agents at its own URL: a JSON graph of what it shows and what can be done there " +
		"(`Accept: " + protocol.MediaType + "`), or Markdown (`Accept: text/markdown`). An action is a POST of `{\"action\": name, \"input\": {...}}` to the page.\n\n## Pages\n\n")
	for _, r := range idx.Routes {
		desc := r.Description
		if desc == "" {
			desc = r.Route
		}
		var names []string
		for _, a := range r.Actions {
			names = append(names, a.Name)
		}
		can := ""
		if len(names) > 0 {
			can = ": " + strings.Join(names, ", ")
		}
		if strings.Contains(r.Route, "[") {
			fmt.Fprintf(&b, "- `%s`, %s%s\n", r.Route, mdtext.Escape(desc), can)
		} else {
			fmt.Fprintf(&b, "- [%s](%s%s)%s\n", mdtext.Escape(desc), s.Origin, r.Route, can)
		}
	}
	b.WriteString("\n## For agents\n\n")
	fmt.Fprintf(&b, "- [Site index](%s%s): every route and action, for planning without opening pages\n", s.Origin, protocol.WellKnownPath)
	for _, line := range s.DoorLines {
		if line != "" {
			fmt.Fprintf(&b, "- %s\n", line)
		}
	}
	if s.CatalogPath != "" {
		fmt.Fprintf(&b, "- [AI catalog](%s%s)\n", s.Origin, s.CatalogPath)
	}
	if len(idx.Auth) > 0 {
		modes := make([]string, len(idx.Auth))
		for i, m := range idx.Auth {
			modes[i] = string(m)
		}
		fmt.Fprintf(&b, "\nCredentials: %s.\n", strings.Join(modes, ", "))
	}
	return b.String()
}

// CatalogEntry is the part of a door's catalog entry that the site
// writes: its name, description, capabilities (its actions) and
// representative queries. The door completes it.
func CatalogEntry(idx protocol.SiteIndex, s Site) map[string]any {
	name := s.Name
	if name == "" {
		name = s.Host
	}
	entry := map[string]any{
		"displayName": name,
		"description": s.Description,
	}
	var caps []string
	for _, r := range idx.Routes {
		for _, a := range r.Actions {
			caps = append(caps, a.Name)
		}
	}
	if len(caps) > 0 {
		entry["capabilities"] = caps
	}
	if q := queries(idx, s.Queries); len(q) >= 2 {
		entry["representativeQueries"] = q
	}
	return entry
}

// Catalog wraps the doors' entries in the catalog document.
func Catalog(entries []any, name string) map[string]any {
	out := map[string]any{"specVersion": "1.0", "entries": entries}
	if name != "" {
		out["host"] = map[string]any{"displayName": name}
	}
	return out
}

// queries are 2 to 5 questions for the catalog: the configured ones, else
// the descriptions of the first pages.
func queries(idx protocol.SiteIndex, configured []string) []string {
	if len(configured) > 0 {
		return configured[:min(len(configured), 5)]
	}
	var out []string
	for _, r := range idx.Routes {
		if r.Description != "" && len(out) < 5 {
			out = append(out, r.Description)
		}
	}
	return out
}
