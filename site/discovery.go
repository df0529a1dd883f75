package site

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"

	"github.com/affordances-go/affordances/protocol"
)

// The discovery files other agents and their makers look for, each made
// from the site index as an anonymous caller sees it, so that none holds
// anything personal and every cache may keep them:
//
//   - /llms.txt, Markdown for language models: the site, its pages with
//     their actions, and where agents go next;
//   - /.well-known/ai-catalog.json, an Agentic Resource Discovery catalog
//     whose entry is the MCP endpoint's server card;
//   - /.well-known/mcp/server-card.json (also /.well-known/mcp.json), the
//     MCP server card: the endpoint, its transport and credentials.
//
// The catalog and the card are served when the site mounts an MCP
// endpoint (package site/mcp). HTML pages with a graph link the catalog
// (Link rel="ai-catalog"); [Site.RobotsLines] gives robots.txt its line.

// The paths of the discovery files.
const (
	LLMsTxtPath         = "/llms.txt"
	AICatalogPath       = "/.well-known/ai-catalog.json"
	ServerCardPath      = "/.well-known/mcp/server-card.json"
	ServerCardAliasPath = "/.well-known/mcp.json"
)

// Media types of the discovery files, as their specifications name them.
const (
	AICatalogMediaType  = "application/ai-catalog+json"
	ServerCardMediaType = "application/mcp-server-card+json"
	serverCardSchema    = "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json"
)

// DiscoveryOptions shape the discovery files. The zero value serves all
// of them, with words made from the index.
type DiscoveryOptions struct {
	// Description says in a sentence what the site is, for llms.txt, the
	// catalog and the card. Default: made from the site's name.
	Description string
	// Queries are 2 to 5 questions a person might ask that this site
	// answers ("buy a t-shirt in size M"), for the catalog's search
	// indexes. Default: the descriptions of the site's first pages.
	Queries []string
	// Version is the version of the MCP server the card announces.
	// Default: "1.0.0".
	Version string
	// NoLLMsTxt, NoAICatalog and NoServerCard turn a file off, such as
	// when the application serves its own.
	NoLLMsTxt, NoAICatalog, NoServerCard bool
}

// discoveryCache is how long caches may keep a discovery file.
const discoveryCache = "public, max-age=300"

// publicIndex is the index as an anonymous caller sees it.
func (s *Site) publicIndex(hr *http.Request) protocol.SiteIndex {
	return s.Index(&Request{Request: hr})
}

// siteDescription is the site in a sentence.
func (s *Site) siteDescription() string {
	if d := s.opts.Discovery.Description; d != "" {
		return d
	}
	name := s.opts.Name
	if name == "" {
		name = "This site"
	}
	return name + " answers people in HTML and agents in JSON and Markdown at the same URLs, from its Affordances graph."
}

// LLMsTxt writes /llms.txt for the request's origin.
func (s *Site) LLMsTxt(hr *http.Request) string {
	idx := s.publicIndex(hr)
	origin := s.Origin(hr)
	var b strings.Builder
	name := idx.Name
	if name == "" {
		name = hr.Host
	}
	fmt.Fprintf(&b, "# %s\n\n> %s\n\n", EscapeMarkdown(name), EscapeMarkdown(s.siteDescription()))
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
			fmt.Fprintf(&b, "- `%s`, %s%s\n", r.Route, EscapeMarkdown(desc), can)
		} else {
			fmt.Fprintf(&b, "- [%s](%s%s)%s\n", EscapeMarkdown(desc), origin, r.Route, can)
		}
	}
	b.WriteString("\n## For agents\n\n")
	fmt.Fprintf(&b, "- [Site index](%s%s): every route and action, for planning without opening pages\n", origin, protocol.WellKnownPath)
	if idx.MCP != "" {
		fmt.Fprintf(&b, "- [MCP endpoint](%s%s): the same actions as MCP tools (streamable HTTP)\n", origin, idx.MCP)
		if s.servesCatalog() {
			fmt.Fprintf(&b, "- [AI catalog](%s%s)\n", origin, AICatalogPath)
		}
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

// ServerCard is the MCP server card of a site that mounts an MCP
// endpoint; nil without one.
func (s *Site) ServerCard(hr *http.Request) map[string]any {
	if s.mcpPath == "" {
		return nil
	}
	version := s.opts.Discovery.Version
	if version == "" {
		version = "1.0.0"
	}
	remote := map[string]any{"type": "streamable-http", "url": s.Origin(hr) + s.mcpPath}
	for _, m := range s.opts.AuthModes {
		if m == protocol.AuthBearer {
			remote["headers"] = []map[string]any{{"name": "Authorization", "description": "Bearer token of the person's account", "isRequired": false, "isSecret": true}}
		}
	}
	card := map[string]any{
		"$schema":     serverCardSchema,
		"name":        reverseDNS(hr.Host) + "/mcp",
		"version":     version,
		"description": s.siteDescription(),
		"remotes":     []any{remote},
	}
	if s.opts.Name != "" {
		card["title"] = s.opts.Name
	}
	return card
}

// AICatalog is the Agentic Resource Discovery catalog: the MCP server
// card as its entry, when the site has an MCP endpoint.
func (s *Site) AICatalog(hr *http.Request) map[string]any {
	host := hostOnly(hr.Host)
	entries := []any{}
	if s.servesCard() {
		idx := s.publicIndex(hr)
		name := s.opts.Name
		if name == "" {
			name = host
		}
		entry := map[string]any{
			"identifier":  "urn:air:" + host + ":mcp:" + urnName(name),
			"displayName": name,
			"type":        ServerCardMediaType,
			"url":         s.Origin(hr) + ServerCardPath,
			"description": s.siteDescription(),
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
		if q := s.queries(idx); len(q) >= 2 {
			entry["representativeQueries"] = q
		}
		entries = append(entries, entry)
	}
	out := map[string]any{"specVersion": "1.0", "entries": entries}
	if s.opts.Name != "" {
		out["host"] = map[string]any{"displayName": s.opts.Name}
	}
	return out
}

// queries are 2 to 5 questions for the catalog: the configured ones, else
// the descriptions of the first pages.
func (s *Site) queries(idx protocol.SiteIndex) []string {
	if q := s.opts.Discovery.Queries; len(q) > 0 {
		return q[:min(len(q), 5)]
	}
	var out []string
	for _, r := range idx.Routes {
		if r.Description != "" && len(out) < 5 {
			out = append(out, r.Description)
		}
	}
	return out
}

// serveDiscovery serves one discovery file.
func (s *Site) serveDiscovery(path string) http.HandlerFunc {
	return func(w http.ResponseWriter, hr *http.Request) {
		var body []byte
		ctype := "application/json"
		switch path {
		case LLMsTxtPath:
			body, ctype = []byte(s.LLMsTxt(hr)), "text/markdown; charset=utf-8"
		case AICatalogPath:
			body, _ = json.Marshal(s.AICatalog(hr))
			ctype = AICatalogMediaType
		default:
			card := s.ServerCard(hr)
			if card == nil {
				http.NotFound(w, hr)
				return
			}
			body, _ = json.Marshal(card)
			ctype = ServerCardMediaType
		}
		h := w.Header()
		h.Set("Content-Type", ctype)
		h.Set("Cache-Control", discoveryCache)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Content-Length", strconv.Itoa(len(body)))
		if hr.Method != http.MethodHead {
			w.Write(body)
		}
	}
}

// servesCatalog and servesCard report whether the site serves the AI
// catalog and the MCP server card: it has an MCP endpoint, and the file
// is not turned off.
func (s *Site) servesCatalog() bool { return s.mcpPath != "" && !s.opts.Discovery.NoAICatalog }
func (s *Site) servesCard() bool    { return s.mcpPath != "" && !s.opts.Discovery.NoServerCard }

// discoveryPaths are the files this site serves.
func (s *Site) discoveryPaths() []string {
	var out []string
	if !s.opts.Discovery.NoLLMsTxt {
		out = append(out, LLMsTxtPath)
	}
	if s.servesCatalog() {
		out = append(out, AICatalogPath)
	}
	if s.servesCard() {
		out = append(out, ServerCardPath, ServerCardAliasPath)
	}
	return out
}

// RobotsLines are the lines a site's robots.txt adds so that crawlers
// and agents find the discovery files: the catalog's Agentmap. Empty
// when the site serves no catalog.
func (s *Site) RobotsLines(hr *http.Request) string {
	if !s.servesCatalog() {
		return ""
	}
	return "Agentmap: " + s.Origin(hr) + AICatalogPath + "\n"
}

// hostOnly is a Host header without its port.
func hostOnly(host string) string {
	if h, _, err := net.SplitHostPort(host); err == nil {
		return h
	}
	return host
}

// reverseDNS writes a host the way MCP names servers: example.com as
// com.example.
func reverseDNS(host string) string {
	host = hostOnly(host)
	if net.ParseIP(host) != nil {
		return strings.ReplaceAll(host, ":", "-")
	}
	parts := strings.Split(host, ".")
	for i, j := 0, len(parts)-1; i < j; i, j = i+1, j-1 {
		parts[i], parts[j] = parts[j], parts[i]
	}
	return strings.Join(parts, ".")
}

// urnName is a name as a URN segment: letters, digits, dots, dashes and
// underscores.
func urnName(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '.', r == '-', r == '_':
			b.WriteRune(r)
		case b.Len() > 0 && !strings.HasSuffix(b.String(), "-"):
			b.WriteByte('-')
		}
	}
	if out := strings.Trim(b.String(), "-"); out != "" {
		return out
	}
	return "site"
}
