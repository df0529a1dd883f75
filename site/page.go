package site

import (
	"fmt"
	"html/template"
	"net/http"
	"strings"

	"github.com/affordances-go/affordances/protocol"
)

// State is what a page shows for one request. The page's loader returns it;
// the HTML view and the graph are both rendered from it.
type State struct {
	// Entities is the page's data, keyed by entity name. Values are
	// encoded with encoding/json for agents and read by field name in
	// templates.
	Entities map[string]any
	// Nav lists the links an agent can follow from the page.
	Nav []protocol.Nav
	// MD is an optional short Markdown rendering of the page.
	MD string
}

// Loader reads a page's state for one request. It returns [ErrNotFound]
// when the request names nothing that exists.
type Loader func(r *Request) (*State, error)

// PageOptions describe a page.
type PageOptions struct {
	// Description is one line on what the page is for; the site index
	// shows it.
	Description string
	// Load reads the page's state. A nil Load gives every request an empty
	// state.
	Load Loader
	// View renders the page's HTML from a [View]. When nil, browsers are
	// sent to the wrapped application (see [Site.Wrap]), or get 406 from a
	// site that wraps none.
	View *template.Template
}

// Page is one registered page: a route, its loader and view, and its
// actions.
type Page struct {
	site    *Site
	pattern string // the ServeMux pattern
	route   string // the pattern in the protocol's bracket form
	opts    PageOptions
	actions []*action
	byName  map[string]*action
}

// Route returns the page's route in the protocol's bracket form, such as
// /products/[slug].
func (p *Page) Route() string { return p.route }

// Pattern returns the ServeMux pattern the page was registered with.
func (p *Page) Pattern() string { return p.pattern }

// Page registers a page under a Go ServeMux pattern such as
// "/products/{slug}". A pattern that ends in a slash names that one page,
// not a subtree: "/" is the home page only. Patterns carry no method or
// host; a page answers GET, HEAD and POST itself.
//
// Page panics, as http.ServeMux.Handle does, when the pattern is invalid or
// conflicts with another page, and when the site is already serving.
func (s *Site) Page(pattern string, opts PageOptions) *Page {
	if s.started.Load() {
		panic("site: Page(" + pattern + ") after the site started serving")
	}
	if !strings.HasPrefix(pattern, "/") {
		panic(fmt.Sprintf("site: page pattern %q must start with / (no method or host)", pattern))
	}
	if strings.HasSuffix(pattern, "/") {
		pattern += "{$}"
	}
	route, err := bracketRoute(pattern)
	if err != nil {
		panic("site: " + err.Error())
	}
	s.check.Handle(pattern, http.NotFoundHandler()) // panics on invalid or conflicting patterns
	p := &Page{site: s, pattern: pattern, route: route, opts: opts, byName: map[string]*action{}}
	s.pages = append(s.pages, p)
	return p
}

// bracketRoute turns a ServeMux pattern into the protocol's route form:
// {slug} becomes [slug], {path...} becomes [...path], and {$} is dropped.
func bracketRoute(pattern string) (string, error) {
	var b strings.Builder
	rest := pattern
	for {
		i := strings.IndexByte(rest, '{')
		if i < 0 {
			b.WriteString(rest)
			return b.String(), nil
		}
		b.WriteString(rest[:i])
		j := strings.IndexByte(rest[i:], '}')
		if j < 0 {
			return "", fmt.Errorf("pattern %q: unclosed {", pattern)
		}
		name := rest[i+1 : i+j]
		rest = rest[i+j+1:]
		switch {
		case name == "$":
		case strings.HasSuffix(name, "..."):
			b.WriteString("[..." + strings.TrimSuffix(name, "...") + "]")
		default:
			b.WriteString("[" + name + "]")
		}
	}
}

// load runs the page's loader, or returns an empty state.
func (p *Page) load(r *Request) (*State, error) {
	if p.opts.Load == nil {
		return &State{}, nil
	}
	st, err := p.opts.Load(r)
	if err == nil && st == nil {
		st = &State{}
	}
	return st, err
}
