package site

import (
	"net/http"
	"strconv"

	"github.com/affordances-go/affordances/internal/mdpage"
	"github.com/affordances-go/affordances/internal/mdtext"
	"github.com/affordances-go/affordances/internal/negotiate"
)

// markdownTokensHeader carries, on a Markdown answer, its size in tokens
// as the site estimates them (bytes / 4, the estimate of the graph's
// token ceiling), for an agent that budgets its context.
const markdownTokensHeader = "X-Markdown-Tokens"

// serveMarkdown answers a GET that prefers text/markdown with the page as
// Markdown: the same state, caller and actions as its graph (its md, its
// actions and its links, see package internal/mdpage), cached as its HTML
// would be for an anonymous caller of a public page and never otherwise.
func (s *Site) serveMarkdown(w http.ResponseWriter, hr *http.Request, p *Page) {
	h := w.Header()
	addVaryAccept(h)
	r, g, e := s.pageGraph(hr, p)
	if e != nil {
		e.setHeaders(h)
		h.Set("Cache-Control", "private, no-store")
		writeMarkdown(w, hr, e.Status(), "# "+http.StatusText(e.Status())+"\n\n"+mdtext.Escape(e.message)+"\n")
		return
	}
	title := p.opts.Description
	if title == "" {
		title = p.route
	}
	p.setCaching(h, r, http.StatusOK)
	writeMarkdown(w, hr, http.StatusOK, mdpage.Render(g, title, negotiate.MarkdownForTools(hr)))
}

func writeMarkdown(w http.ResponseWriter, r *http.Request, status int, body string) {
	h := w.Header()
	h.Set("Content-Type", "text/markdown; charset=utf-8")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set(markdownTokensHeader, strconv.Itoa(len(body)/4))
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		w.Write([]byte(body))
	}
}
