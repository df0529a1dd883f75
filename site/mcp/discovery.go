package mcp

import (
	"encoding/json"
	"net"
	"net/http"
	"strings"

	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site"
)

// The MCP server card: where MCP hosts learn of the endpoint, its
// transport and its credentials.
const (
	ServerCardPath      = "/.well-known/mcp/server-card.json"
	ServerCardAliasPath = "/.well-known/mcp.json"
	ServerCardMediaType = "application/mcp-server-card+json"
	serverCardSchema    = "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json"
)

// listing is what the site's discovery says of the endpoint at path: its
// place in the index, its line in llms.txt and, unless o turns the card
// off, the card and the card's entry in the AI catalog.
func listing(s *site.Site, path string, o Options) site.Listing {
	l := site.Listing{
		Index: func(idx *protocol.SiteIndex) { idx.MCP = path },
		LLMsTxt: func(origin string) string {
			return "[MCP endpoint](" + origin + path + "): the same actions as MCP tools (streamable HTTP)"
		},
	}
	if o.NoServerCard {
		return l
	}
	card := func(hr *http.Request) ([]byte, string) {
		b, _ := json.Marshal(serverCard(s, hr, path, o.CardVersion))
		return b, ServerCardMediaType
	}
	l.Files = map[string]func(*http.Request) ([]byte, string){ServerCardPath: card, ServerCardAliasPath: card}
	l.Catalog = func(hr *http.Request, entry map[string]any) {
		host := hostOnly(hr.Host)
		name, _ := entry["displayName"].(string)
		entry["identifier"] = "urn:air:" + host + ":mcp:" + urnName(name)
		entry["type"] = ServerCardMediaType
		entry["url"] = s.Origin(hr) + ServerCardPath
	}
	return l
}

// serverCard is the MCP server card of the endpoint at path, for the
// request's host, as an anonymous caller sees the site.
func serverCard(s *site.Site, hr *http.Request, path, version string) map[string]any {
	if version == "" {
		version = "1.0.0"
	}
	remote := map[string]any{"type": "streamable-http", "url": s.Origin(hr) + path}
	for _, m := range s.Index(&site.Request{Request: hr}).Auth {
		if m == protocol.AuthBearer {
			remote["headers"] = []map[string]any{{"name": "Authorization", "description": "Bearer token of the person's account", "isRequired": false, "isSecret": true}}
		}
	}
	card := map[string]any{
		"$schema":     serverCardSchema,
		"name":        reverseDNS(hr.Host) + "/mcp",
		"version":     version,
		"description": s.Description(),
		"remotes":     []any{remote},
	}
	if name := s.Name(); name != "" {
		card["title"] = name
	}
	return card
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
