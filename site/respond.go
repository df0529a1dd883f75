package site

import (
	"encoding/json"
	"net/http"

	"github.com/affordances-go/affordances/internal/mdpage"
	"github.com/affordances-go/affordances/internal/negotiate"
	"github.com/affordances-go/affordances/internal/respond"
	"github.com/affordances-go/affordances/protocol"
)

// writeDelta writes a delta with the given status: as Markdown to a
// call that asks for it (Accept: text/markdown), such as a WebMCP tool's,
// whose agent reads results rather than parses them.
func writeDelta(w http.ResponseWriter, r *http.Request, status int, d protocol.Delta) {
	if r.Method == http.MethodPost && negotiate.Markdown(r) {
		h := w.Header()
		respond.VaryAccept(h)
		respond.NoStore(h)
		if d.Redirect != "" {
			h.Set("Link", "<"+d.Redirect+`>; rel="next"`) // where a form would have led
		}
		respond.Markdown(w, r, status, mdpage.Delta(d, mdpage.Over(negotiate.MarkdownForTools(r))))
		return
	}
	b, err := json.Marshal(d)
	if err != nil { // a delta of plain values always encodes; keep a fallback anyway
		b = []byte(`{"ok":false,"error":{"code":"internal","message":"` + internalMessage + `"}}`)
		status = http.StatusInternalServerError
	}
	respond.Document(w, r, status, b)
}
