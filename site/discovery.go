package site

import (
	"encoding/json"
	"html/template"
	"maps"
	"net"
	"net/http"
	"strconv"

	"github.com/affordances-go/affordances/internal/discovery"
	"github.com/affordances-go/affordances/protocol"
)

// The discovery files other agents and their makers look for, each made
// from the site index as an anonymous caller sees it, so that none holds
// anything personal and every cache may keep them:
//
//   - /llms.txt, Markdown for language models: the site, its pages with
//     their actions, and where agents go next;
//   - /.well-known/ai-catalog.json, an Agentic Resource Discovery catalog
//     with an entry for each door an extension lists with one;
//   - the files of the doors themselves ([Listing.Files]).
//
// The catalog is served when a door has an entry in it. HTML pages with
// a graph link the catalog (Link rel="ai-catalog"); [Site.RobotsLines]
// gives robots.txt its line.

// How agents find what the site offers: the element that advertises a
// page's graph, the paths of the site's own discovery files,
// and the catalog's media type, as its specification names it.
const (
	// LinkTag is the <link rel="affordances"> element that advertises the
	// page's graph, for a page's <head>.
	LinkTag template.HTML = `<link rel="affordances" href="?affordances=1">`

	LLMsTxtPath        = "/llms.txt"
	AICatalogPath      = "/.well-known/ai-catalog.json"
	AICatalogMediaType = "application/ai-catalog+json"
)

// Listing is what the site's discovery says of a door an extension adds
// ([Extender.List]): its place in the site index, its line in llms.txt,
// its entry in the AI catalog and the files it is described by. Each is
// made for an anonymous caller, so that every cache may keep it.
type Listing struct {
	// Index sets the door's place in the site index, such as its MCP
	// endpoint; nil for none.
	Index func(idx *protocol.SiteIndex)
	// LLMsTxt is the door's line under "For agents" in llms.txt, in
	// Markdown, for the site's origin; "" for none.
	LLMsTxt func(origin string) string
	// Catalog completes the door's entry in the AI catalog: the site's
	// name, description, capabilities (its actions) and queries are
	// there; the door adds its identifier, type and url. nil for no entry.
	Catalog func(hr *http.Request, entry map[string]any)
	// Files are the door's own discovery files by path: each returns its
	// body and media type, or a nil body for 404.
	Files map[string]func(hr *http.Request) (body []byte, mediaType string)
}

// List adds l to the site's discovery (see [Listing]).
func (x *Extender) List(l Listing) { x.s.listings = append(x.s.listings, l) }

// discoveryCache is how long caches may keep a discovery file. A site
// without Security.Origins writes its URLs from each request's Host
// header: then only the browser that asked may keep the file
// (discoveryPrivate), so that no shared cache hands another host's URLs
// to everyone.
const (
	discoveryCache   = "public, max-age=300"
	discoveryPrivate = "private, max-age=300"
)

// publicIndex is the index as an anonymous caller sees it.
func (s *Site) publicIndex(hr *http.Request) protocol.SiteIndex {
	return s.Index(&Request{Request: hr})
}

// Description is the site in a sentence, for the discovery files
// (DiscoveryOptions.Description, else one made from the site's name).
func (s *Site) Description() string {
	if d := s.opts.Discovery.Description; d != "" {
		return d
	}
	name := s.opts.Name
	if name == "" {
		name = "This site"
	}
	return name + " answers people in HTML and agents in JSON and Markdown at the same URLs, from its Affordances graph."
}

// discoverySite is what the discovery files say of the site for hr,
// beside its index.
func (s *Site) discoverySite(hr *http.Request) discovery.Site {
	d := discovery.Site{Name: s.opts.Name, Host: hostOnly(hr.Host), Origin: s.Origin(hr),
		Description: s.Description(), Queries: s.opts.Discovery.Queries}
	for _, l := range s.listings {
		if l.LLMsTxt != nil {
			d.DoorLines = append(d.DoorLines, l.LLMsTxt(d.Origin))
		}
	}
	if s.servesCatalog() {
		d.CatalogPath = AICatalogPath
	}
	return d
}

// LLMsTxt writes /llms.txt for the request's origin.
func (s *Site) LLMsTxt(hr *http.Request) string {
	d := s.discoverySite(hr)
	d.Host = hr.Host // llms.txt names a site without a name by its whole Host, port included
	return discovery.LLMsTxt(s.publicIndex(hr), d)
}

// AICatalog is the Agentic Resource Discovery catalog: an entry for each
// door listed with one ([Listing.Catalog]).
func (s *Site) AICatalog(hr *http.Request) map[string]any {
	entries := []any{}
	var idx *protocol.SiteIndex // read once, for the first door with an entry
	var d discovery.Site
	for _, l := range s.listings {
		if l.Catalog == nil {
			continue
		}
		if idx == nil {
			i := s.publicIndex(hr)
			idx, d = &i, s.discoverySite(hr)
		}
		entry := discovery.CatalogEntry(*idx, d)
		l.Catalog(hr, entry)
		entries = append(entries, entry)
	}
	return discovery.Catalog(entries, s.opts.Name)
}

// serveDiscovery serves one discovery file, made by file for each request.
func (s *Site) serveDiscovery(file func(hr *http.Request) ([]byte, string)) http.HandlerFunc {
	cache := discoveryCache
	if len(s.origins) == 0 {
		cache = discoveryPrivate
	}
	return func(w http.ResponseWriter, hr *http.Request) {
		body, ctype := file(hr)
		if body == nil {
			http.NotFound(w, hr)
			return
		}
		h := w.Header()
		h.Set("Content-Type", ctype)
		h.Set("Cache-Control", cache)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Content-Length", strconv.Itoa(len(body)))
		if hr.Method != http.MethodHead {
			w.Write(body)
		}
	}
}

// servesCatalog reports whether the site serves the AI catalog: a door
// has an entry in it, and the file is not turned off.
func (s *Site) servesCatalog() bool {
	if s.opts.Discovery.NoAICatalog {
		return false
	}
	for _, l := range s.listings {
		if l.Catalog != nil {
			return true
		}
	}
	return false
}

// discoveryFiles are the files this site serves, by path.
func (s *Site) discoveryFiles() map[string]func(hr *http.Request) ([]byte, string) {
	out := map[string]func(hr *http.Request) ([]byte, string){}
	if !s.opts.Discovery.NoLLMsTxt {
		out[LLMsTxtPath] = func(hr *http.Request) ([]byte, string) { return []byte(s.LLMsTxt(hr)), "text/markdown; charset=utf-8" }
	}
	if s.servesCatalog() {
		out[AICatalogPath] = func(hr *http.Request) ([]byte, string) {
			b, _ := json.Marshal(s.AICatalog(hr))
			return b, AICatalogMediaType
		}
	}
	for _, l := range s.listings {
		maps.Copy(out, l.Files)
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
