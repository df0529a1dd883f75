package site

import (
	"net/http"

	"github.com/affordances-go/affordances/internal/advertise"
)

// What a wrapped application keeps (see [Site.Wrap]): every request the
// site does not serve itself reaches it unchanged, and its answers gain
// only the headers that are true of them.

// advertiseGraph adds the headers of an HTML response for a page with a graph.
func advertiseGraph(h http.Header) {
	addVaryAccept(h)
	h.Set("Link", advertise.LinkValue)
}

// moreLinks are the Link values the HTML of a page with a graph gains
// beside the graph's: the site's AI catalog, when it serves one.
func (s *Site) moreLinks() []string {
	if s.servesCatalog() {
		return []string{catalogLink}
	}
	return nil
}

// catalogLink is the Link value of the AI catalog.
const catalogLink = `<` + AICatalogPath + `>; rel="ai-catalog"`

// postsLibraryForm reports whether a POST is a form of the library: a form
// whose FormActionField names an action of the page. Any other form (the
// application's own, a method override) belongs to the wrapped
// application. The body is read to find out, up to the site's body limit,
// and put back whole for whoever serves the request; a body over the limit
// is no form of the library.
func (p *Page) postsLibraryForm(r *http.Request) bool {
	if !isForm(r) {
		return false
	}
	name := advertise.PeekFormAction(r, FormActionField, p.site.opts.Limits.MaxBodyBytes)
	return name != "" && p.byName[name] != nil
}
