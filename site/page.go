package site

import (
	"context"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/affordances-go/affordances/internal/route"
	"github.com/affordances-go/affordances/protocol"
)

// Loader reads a page's state for one request. It returns [ErrNotFound]
// when the request names nothing that exists.
type Loader func(r *Request) (*State, error)

// PageOptions describe a page.
type PageOptions struct {
	// Description is one line on what the page is for; the site index
	// shows it.
	Description string
	// Entities load the page's entities, each loader the first time one
	// of its entities is read: [Entity] for one, [Group] for several read
	// together (a page loaded as a whole is one Group of its keys). So a
	// call loads only what its guards read and, after the action, only
	// its Effects, which are checked at registration against the keys
	// named here; a graph or an HTML page loads them all, then Finish.
	Entities []EntityLoader
	// Exists reports whether the request's URL names something that
	// exists and that this caller may see, as one cheap read (an indexed
	// lookup, an access check): nil when it does, [ErrNotFound] when it
	// does not (the same answer for "no such post" and "not yours"), an
	// error of this package's to answer otherwise. It runs first, before
	// anything else the page does: for a call at step 1, before the
	// caller is checked, its input read or its guard run, so that no
	// action runs on a page that is not there; for a graph or an HTML
	// page before the loaders, which may then take the thing as found.
	// Without it, a call on a page whose route has parameters loads the
	// whole state at step 1 and answers the loaders' [ErrNotFound]: safe,
	// but it reads everything (a page with Transact loads it first thing
	// in the call's transaction instead, where its loaders read, so a
	// caller may meet 401, 429 or 400 before not_found). Declare Exists to
	// read only what the call needs and answer not_found first. A route
	// without parameters names its one page and needs none.
	Exists func(r *Request) error
	// Load is the shorthand of a page that does not name its entities:
	// it reads the whole state at once, on every request, before
	// Entities. Every call then loads everything, and Effects are not
	// checked. A nil Load gives an empty state to start from.
	Load Loader
	// Finish completes the state of a graph or an HTML page once every
	// entity is loaded: Nav, MD, anything computed from the entities. It
	// is not run for calls, whose deltas carry neither.
	Finish func(r *Request, st *State) error
	// View renders the page's HTML from a [View]. When nil, browsers are
	// sent to the wrapped application (see [Site.Wrap]), or get 406 from a
	// site that wraps none.
	View *template.Template
	// Personal marks a page whose HTML is personal even for a caller
	// without credentials, so that no shared cache may keep it. The HTML
	// the site renders for a caller with credentials (a cookie the site
	// reads, a bearer token) is always sent with Cache-Control: private,
	// no-store; graphs always are.
	Personal bool
	// CacheFor is how long a shared cache may keep the page's HTML as
	// rendered for a caller without credentials: it is sent as
	// Cache-Control: public, max-age=N (with Vary: Accept, as always), so
	// that a proxy cache shows, say, stock at most that old. Zero sends no
	// Cache-Control, and a cache applies its own rules. Personal pages,
	// and HTML for callers with credentials, are never public.
	CacheFor time.Duration
	// Transact, when set, runs the part of each call to the page's
	// actions that reads and writes the application's data in one
	// transaction: the guard (with the page state it reads), the action,
	// the reads of the delta and, with a key store that writes in the
	// action's transaction ([idempotency.Optimistic]), the key's stored
	// answer. Transact begins the transaction, calls fn with a context
	// that carries it, and commits when fn returns nil, else rolls back;
	// the page's loaders and actions find the transaction in their
	// Request's context and run their queries in it. The guard then holds
	// while the action runs, and a keyed call's answer is kept with its
	// writes or not at all. A failed commit fails the call: an error of
	// this package's ([Unavailable], say) is answered as it is, a
	// database that is away with 503, anything else as internal. Confirm
	// actions and people-only actions run without it: their step 6 may
	// write what a rollback must not undo. Reads of the page (graphs,
	// HTML) never use it. Default: none; each loader and action uses the
	// database as it will.
	Transact func(ctx context.Context, fn func(ctx context.Context) error) error
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
	params  bool   // the route has parameters: a URL may name nothing (exists)
	at      string // file:line of the Page call, for registration errors
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
	route, err := route.FromPattern(pattern)
	if err != nil {
		panic("site: " + err.Error())
	}
	at := callerLocation()
	checkEntityLoaders(pattern, at, opts.Entities)
	p := &Page{site: s, pattern: pattern, route: route, opts: opts, byName: map[string]*action{}, at: at,
		params: strings.Contains(route, "[")}
	s.checkPattern(pattern, at, pageRef{p})
	s.pages = append(s.pages, p)
	for _, cop := range s.crossOrigin {
		cop.AddInsecureBypassPattern(http.MethodPost + " " + pattern)
	}
	return p
}

// checkPattern registers the pattern on the site's check mux with h (a
// page's pageRef), which panics on an invalid pattern or one that
// conflicts with another page's.
// The panic is repeated with the file and line of both Page calls, so that
// it points at the author's code rather than at this package.
func (s *Site) checkPattern(pattern, at string, h http.Handler) {
	defer func() {
		p := recover()
		if p == nil {
			return
		}
		msg := fmt.Sprint(p)
		for _, other := range s.pages {
			if strings.Contains(msg, "conflicts with pattern "+strconv.Quote(other.pattern)) {
				_, why, _ := strings.Cut(msg, "\n")
				panic(fmt.Sprintf("site: page %q at %s conflicts with page %q registered at %s: %s",
					pattern, at, other.pattern, other.at, strings.TrimSpace(why)))
			}
		}
		panic(fmt.Sprintf("site: page %q at %s: %s", pattern, at, msg))
	}()
	s.check.Handle(pattern, h)
}

// callerLocation returns the file:line of the first caller outside this
// package: the author's Page or Handle call.
func callerLocation() string {
	pcs := make([]uintptr, 16)
	n := runtime.Callers(2, pcs)
	frames := runtime.CallersFrames(pcs[:n])
	for {
		f, more := frames.Next()
		if !strings.HasPrefix(f.Function, thisPackage+".") || strings.HasSuffix(f.File, "_test.go") {
			return filepath.Base(filepath.Dir(f.File)) + "/" + filepath.Base(f.File) + ":" + strconv.Itoa(f.Line)
		}
		if !more {
			return "unknown location"
		}
	}
}

// thisPackage is this package's import path, as runtime frames name it.
const thisPackage = "github.com/affordances-go/affordances/site"

// load runs the page's loader; a nil loader gives an empty state.
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

// loadFull reads the whole state, as a graph or an HTML page shows it:
// Load, every entity loader in order, then Finish.
func (p *Page) loadFull(r *Request) (*State, error) {
	if p.opts.Exists != nil {
		if err := p.opts.Exists(r); err != nil {
			return nil, err
		}
	}
	if len(p.opts.Entities) == 0 && p.opts.Finish == nil {
		return p.load(r)
	}
	st, err := p.load(r)
	if err != nil {
		return nil, err
	}
	if st.entities == nil {
		st.entities = make(map[string]any, len(p.opts.Entities))
	}
	for _, e := range p.opts.Entities {
		if st.holds(e.names) {
			continue
		}
		if err := e.fill(r, st); err != nil {
			return nil, err
		}
	}
	if p.opts.Finish != nil {
		if err := p.opts.Finish(r, st); err != nil {
			return nil, err
		}
	}
	return st, nil
}

// loadState runs the page's loader for a request and turns its error into
// the failure every transport answers with: not_found for [ErrNotFound],
// internal (logged with the route and path) for anything else.
func (p *Page) loadState(r *Request) (*State, *Error) {
	st, err := p.loadFull(r)
	return st, p.loadFailure(r, err)
}

// loadFailure turns a loader's error into the failure every transport
// answers with, or nil.
func (p *Page) loadFailure(r *Request, err error) *Error {
	if err == nil {
		return nil
	}
	if errors.Is(err, ErrNotFound) {
		return newError(protocol.CodeNotFound, "no such page")
	}
	if e, ok := err.(*Error); ok {
		return e // Exists or a loader answered with a code of this package's
	}
	return p.site.failure(r.Context(), "page loader failed", err, "route", p.route, "path", r.URL.Path)
}

// checkFault turns a fault recorded on the state by the site's own code
// (a wrongly typed entity, a panicking guard) into an internal failure,
// logged with the route.
func (p *Page) checkFault(r *Request, st *State) *Error {
	if err := st.loadErr(); err != nil {
		return p.loadFailure(r, err)
	}
	if err := st.fault(); err != nil {
		p.site.opts.Logger.ErrorContext(r.Context(), "affordances: the site's code failed on the page state",
			"route", p.route, "path", r.URL.Path, "err", err)
		return newInternalError()
	}
	return nil
}

// checkEntityLoaders panics, like a bad pattern, on entity loaders a page
// cannot use: more than 64, two for one name, a group that names no
// entity, or one made without Entity or Group.
func checkEntityLoaders(pattern, at string, loaders []EntityLoader) {
	if len(loaders) > maxEntityLoaders {
		panic(fmt.Sprintf("site: page %q at %s: %d entity loaders, at most %d", pattern, at, len(loaders), maxEntityLoaders))
	}
	seen := map[string]bool{}
	for _, e := range loaders {
		switch {
		case e.fill == nil:
			panic(fmt.Sprintf("site: page %q at %s: an entity loader not made with site.Entity or site.Group", pattern, at))
		case len(e.names) == 0:
			panic(fmt.Sprintf("site: page %q at %s: a site.Group that names no entity", pattern, at))
		}
		for _, n := range e.names {
			if seen[n] {
				panic(fmt.Sprintf("site: page %q at %s: two entity loaders for %q", pattern, at, n))
			}
			seen[n] = true
		}
	}
}

// exists is where a call first meets its page, at step 1 (resolve): the
// URL must name something that exists and that the caller may see
// before anything else runs (PageOptions.Exists). A page that declares
// no Exists and whose route has parameters is found by loading its
// whole state, as a graph would, unless its loaders read in the call's
// transaction (foundInTransaction); a route without parameters names
// its one page.
func (p *Page) exists(r *Request) error {
	switch {
	case p.opts.Exists != nil:
		return p.opts.Exists(r)
	case !p.params || p.foundInTransaction():
		return nil
	}
	st, err := p.phaseState(r)
	if err != nil || st.lazy.page == nil {
		return err
	}
	return st.loadAll()
}

// foundInTransaction reports whether the page is found by its loaders
// inside the call's transaction rather than at step 1: a page with
// parameters, Transact and no Exists, whose loaders read only in the
// transaction. Its whole state loads there before the guard
// (checkGuard), so no action runs on a page that is not there, but a
// caller may meet an earlier step's answer (401, 429, 400) first.
func (p *Page) foundInTransaction() bool {
	return p.params && p.opts.Exists == nil && p.opts.Transact != nil
}
