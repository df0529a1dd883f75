// Package respond writes the bodies a site answers with, each with the
// headers that are true of its kind: an Affordances document, an HTML
// page, a Markdown text. A HEAD gets the headers alone.
package respond

import (
	"net/http"
	"strconv"

	"github.com/affordances-go/affordances/protocol"
)

// Header values every document carries, shared rather than allocated per
// response (a graph GET is the hot path). Their capacity is their length,
// so that a handler adding to one gets a new slice, never a shared write.
var (
	mediaTypeValue = []string{protocol.MediaType}[:1:1]
	noStoreValue   = []string{"private, no-store"}[:1:1]
	nosniffValue   = []string{"nosniff"}[:1:1]
	acceptValue    = []string{"Accept"}[:1:1]
)

// MarkdownTokensHeader carries, on a Markdown answer, its size in tokens
// as the site estimates them (bytes / 4, the estimate of the graph's
// token ceiling), for an agent that budgets its context.
const MarkdownTokensHeader = "X-Markdown-Tokens"

// Document writes an Affordances document: its media type, Vary: Accept,
// never stored, never sniffed.
func Document(w http.ResponseWriter, r *http.Request, status int, body []byte) {
	h := w.Header()
	h["Content-Type"] = mediaTypeValue
	VaryAccept(h)
	h["Cache-Control"] = noStoreValue
	h["X-Content-Type-Options"] = nosniffValue
	write(w, r, status, body)
}

// NoStore marks an answer as one caller's: no cache keeps it.
func NoStore(h http.Header) { h["Cache-Control"] = noStoreValue }

// HTML writes a rendered HTML page.
func HTML(w http.ResponseWriter, r *http.Request, status int, body []byte) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	write(w, r, status, body)
}

// Markdown writes a Markdown text, with its size in tokens.
func Markdown(w http.ResponseWriter, r *http.Request, status int, body string) {
	h := w.Header()
	h.Set("Content-Type", "text/markdown; charset=utf-8")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set(MarkdownTokensHeader, strconv.Itoa(len(body)/4))
	write(w, r, status, []byte(body))
}

// VaryAccept adds Accept to the Vary header.
func VaryAccept(h http.Header) {
	if _, ok := h["Vary"]; ok {
		h.Add("Vary", "Accept")
		return
	}
	h["Vary"] = acceptValue
}

func write(w http.ResponseWriter, r *http.Request, status int, body []byte) {
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		w.Write(body)
	}
}
