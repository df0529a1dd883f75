package site

import (
	"net/http"

	"github.com/affordances-go/affordances/internal/advertise"
	"github.com/affordances-go/affordances/internal/mdpage"
	"github.com/affordances-go/affordances/internal/mdtext"
	"github.com/affordances-go/affordances/internal/negotiate"
	"github.com/affordances-go/affordances/internal/respond"
	"github.com/affordances-go/affordances/protocol"
)

// pageHandler serves one page: what is the application's goes to it as
// it came, and what the site serves itself goes through the application's
// middleware (Options.Middleware), and for the person's HTML door through
// Options.PersonMiddleware too.
type pageHandler struct {
	page     *Page
	next     http.Handler
	byAnswer [answerKinds]http.Handler // serve for each kind of answer, behind the middleware of its door
}

// app reports whether the page is the wrapped application's: it has a
// graph, but the application renders it (no View). Such a page's URL is
// the application's for everything that is not the site's own; a page
// with its own View is the site's alone.
func (ph *pageHandler) app() bool { return ph.next != nil && ph.page.opts.View == nil }

func (ph *pageHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ph.byAnswer[ph.decide(r)].ServeHTTP(w, r)
}

// pageAnswer is the kind of answer a request of a page gets. It is decided
// once per request, by decide, from the request's method and headers and
// the page; every later branch (which middleware it goes through, which
// function serves it) reads that one value.
type pageAnswer uint8

const (
	answerApp           pageAnswer = iota // the wrapped application's, as it came: its forms, its API, other methods
	answerAppPage                         // the wrapped application's HTML page, announced with the graph's Link
	answerGraph                           // the page's graph, to an agent
	answerMarkdown                        // the page's Markdown
	answerHTML                            // the page's own view, to the person
	answerAgentsOnly                      // a browser's GET of a page without a view or an application: 406
	answerCall                            // an Affordances call, POSTed with the media type
	answerForm                            // an HTML form of the library, posted to the page
	answerNoForms                         // an HTML form on a site whose form door is off: 415
	answerCallMediaType                   // a POST that asks for a graph but is no call: 400
	answerUnsupported                     // a POST of another Content-Type: 415
	answerMethod                          // another method on a page of the site's own: 405
	answerKinds                           // how many kinds there are
)

// decide returns the kind of answer to r: the one place a page's request
// is negotiated.
func (ph *pageHandler) decide(r *http.Request) pageAnswer {
	p := ph.page
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		switch {
		case negotiate.Graph(r):
			return answerGraph
		case negotiate.Markdown(r):
			return answerMarkdown
		case p.opts.View != nil:
			return answerHTML
		case ph.next != nil:
			return answerAppPage
		}
		return answerAgentsOnly
	case http.MethodPost:
		if negotiate.Call(r) {
			return answerCall
		}
		graph := negotiate.Graph(r)
		if ph.app() && !graph && (p.site.opts.NoFormDoor || !p.postsLibraryForm(r)) {
			return answerApp // the application's own form, or its API
		}
		switch {
		case isForm(r) && p.site.opts.NoFormDoor:
			return answerNoForms
		case isForm(r):
			return answerForm
		case graph:
			return answerCallMediaType
		}
		return answerUnsupported
	}
	if ph.app() && !negotiate.Graph(r) {
		return answerApp // DELETE, PUT, PATCH…: the application's
	}
	return answerMethod
}

// forApp reports whether an answer is the wrapped application's: the
// request reaches it as it came, through the application's own
// middleware, not the site's.
func (a pageAnswer) forApp() bool { return a == answerApp || a == answerAppPage }

// forPerson reports whether an answer is the person's HTML door: a page
// the site renders, or a form posted to it. It goes through
// Options.PersonMiddleware as well as Options.Middleware.
func (a pageAnswer) forPerson() bool { return a == answerHTML || a == answerForm || a == answerNoForms }

// handlers builds, once, the handler of each kind of answer: the
// function that serves it, behind the middleware its door goes through.
func (ph *pageHandler) handlers() [answerKinds]http.Handler {
	var hs [answerKinds]http.Handler
	s := ph.page.site
	for a := range answerKinds {
		h := http.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { ph.serve(w, r, a) }))
		if !a.forApp() {
			h = s.middleware(h, a.forPerson())
		}
		hs[a] = h
	}
	return hs
}

// serve answers a request of the page as decided.
func (ph *pageHandler) serve(w http.ResponseWriter, r *http.Request, a pageAnswer) {
	p := ph.page
	switch a {
	case answerApp:
		ph.next.ServeHTTP(w, r)
	case answerAppPage:
		respond.VaryAccept(w.Header())
		aw := &advertise.Writer{ResponseWriter: w, More: p.site.moreLinks()}
		ph.next.ServeHTTP(aw, r)
		aw.Finish()
	case answerGraph:
		p.site.serveGraph(w, r, p)
	case answerMarkdown:
		p.site.serveMarkdown(w, r, p)
	case answerHTML:
		p.site.serveHTML(w, r, p)
	case answerAgentsOnly:
		w.Header().Add("Vary", "Accept")
		http.Error(w, "This page is served to agents only: ask for "+protocol.MediaType+".", http.StatusNotAcceptable)
	case answerCall:
		p.site.serveAgentCall(w, r, p)
	case answerForm:
		p.site.serveFormCall(w, r, p)
	case answerNoForms:
		http.Error(w, "this site takes no HTML forms: agents call actions with "+protocol.MediaType, http.StatusUnsupportedMediaType)
	case answerCallMediaType:
		writeFailure(w, r, newError(protocol.CodeInvalidInput, "a call must be sent with Content-Type: "+protocol.MediaType))
	case answerUnsupported:
		http.Error(w, "unsupported Content-Type: post an HTML form or an Affordances call", http.StatusUnsupportedMediaType)
	default:
		w.Header().Set("Allow", "GET, HEAD, POST")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
	}
}

// serveMarkdown answers a GET that prefers text/markdown with the page as
// Markdown: the same state, caller and actions as its graph (its md, its
// actions and its links, see package internal/mdpage), cached as its HTML
// would be for an anonymous caller of a public page and never otherwise.
func (s *Site) serveMarkdown(w http.ResponseWriter, hr *http.Request, p *Page) {
	h := w.Header()
	respond.VaryAccept(h)
	r, g, e := s.pageGraph(hr, p)
	if e != nil {
		e.setHeaders(h)
		h.Set("Cache-Control", "private, no-store")
		respond.Markdown(w, hr, e.Status(), "# "+http.StatusText(e.Status())+"\n\n"+mdtext.Escape(e.message)+"\n")
		return
	}
	title := p.opts.Description
	if title == "" {
		title = p.route
	}
	p.setCaching(h, r, http.StatusOK)
	respond.Markdown(w, hr, http.StatusOK, mdpage.Render(g, title, mdpage.Over(negotiate.MarkdownForTools(hr))))
}
