package site

import (
	"net/http"
	"strconv"

	"github.com/affordances-go/affordances/internal/mdpage"
	"github.com/affordances-go/affordances/protocol"
)

// MarkdownTokensHeader carries, on a Markdown answer, its size in tokens
// as the site estimates them (bytes / 4, the estimate of the graph's
// token ceiling), for an agent that budgets its context.
const MarkdownTokensHeader = "X-Markdown-Tokens"

// serveMarkdown answers a GET that prefers text/markdown with the page as
// Markdown: the same state, caller and actions as its graph (its md, its
// actions and its links, see package internal/mdpage), cached as its HTML
// would be for an anonymous caller of a public page and never otherwise.
func (s *Site) serveMarkdown(w http.ResponseWriter, hr *http.Request, p *Page) {
	h := w.Header()
	addVaryAccept(h)
	r, e := s.authenticate(hr)
	var st *State
	if e == nil {
		st, e = p.loadState(r)
	}
	var g protocol.Graph
	if e == nil {
		g = p.graph(r, st)
		e = p.checkFault(r, st)
	}
	if e != nil {
		e.setHeaders(h)
		h.Set("Cache-Control", "private, no-store")
		writeMarkdown(w, hr, e.Status(), "# "+http.StatusText(e.Status())+"\n\n"+EscapeMarkdown(e.message)+"\n")
		return
	}
	title := p.opts.Description
	if title == "" {
		title = p.route
	}
	switch {
	case r.Caller.Mode != "" || p.opts.Personal:
		h.Set("Cache-Control", "private, no-store")
	case p.opts.CacheFor > 0:
		h.Set("Cache-Control", "public, max-age="+strconv.Itoa(int(p.opts.CacheFor.Seconds())))
	}
	writeMarkdown(w, hr, http.StatusOK, mdpage.Render(g, title))
}

func writeMarkdown(w http.ResponseWriter, r *http.Request, status int, body string) {
	h := w.Header()
	h.Set("Content-Type", "text/markdown; charset=utf-8")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set(MarkdownTokensHeader, strconv.Itoa(len(body)/4))
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		w.Write([]byte(body))
	}
}
