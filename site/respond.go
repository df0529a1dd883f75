package site

import (
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/affordances-go/affordances/internal/mdpage"
	"github.com/affordances-go/affordances/internal/negotiate"
	"github.com/affordances-go/affordances/protocol"
)

// writeDocument writes an Affordances document with the headers every one
// of them carries. HEAD gets the headers alone.
func writeDocument(w http.ResponseWriter, r *http.Request, status int, body []byte) {
	h := w.Header()
	h["Content-Type"] = mediaTypeValue
	addVaryAccept(h)
	h["Cache-Control"] = noStoreValue
	h["X-Content-Type-Options"] = nosniffValue
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		w.Write(body)
	}
}

// writeDelta writes a delta with the given status: as Markdown to a
// call that asks for it (Accept: text/markdown), such as a WebMCP tool's,
// whose agent reads results rather than parses them.
func writeDelta(w http.ResponseWriter, r *http.Request, status int, d protocol.Delta) {
	if r.Method == http.MethodPost && negotiate.Markdown(r) {
		h := w.Header()
		addVaryAccept(h)
		h["Cache-Control"] = noStoreValue
		if d.Redirect != "" {
			h.Set("Link", "<"+d.Redirect+`>; rel="next"`) // where a form would have led
		}
		writeMarkdown(w, r, status, mdpage.Delta(d, mdpage.Over(negotiate.MarkdownForTools(r))))
		return
	}
	b, err := json.Marshal(d)
	if err != nil { // a delta of plain values always encodes; keep a fallback anyway
		b = []byte(`{"ok":false,"error":{"code":"internal","message":"` + internalMessage + `"}}`)
		status = http.StatusInternalServerError
	}
	writeDocument(w, r, status, b)
}

// Header values every document carries, shared rather than allocated per
// response (a graph GET is the hot path). Their capacity is their length,
// so that a handler adding to one gets a new slice, never a shared write.
var (
	mediaTypeValue = []string{protocol.MediaType}[:1:1]
	noStoreValue   = []string{"private, no-store"}[:1:1]
	nosniffValue   = []string{"nosniff"}[:1:1]
	acceptValue    = []string{"Accept"}[:1:1]
)

// addVaryAccept adds Accept to the Vary header.
func addVaryAccept(h http.Header) {
	if _, ok := h["Vary"]; ok {
		h.Add("Vary", "Accept")
		return
	}
	h["Vary"] = acceptValue
}
