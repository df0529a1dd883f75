package site

import (
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/affordances-go/affordances/protocol"
)

// writeDocument writes an Affordances document with the headers every one
// of them carries. HEAD gets the headers alone.
func writeDocument(w http.ResponseWriter, r *http.Request, status int, body []byte) {
	h := w.Header()
	h.Set("Content-Type", protocol.MediaType)
	h.Add("Vary", "Accept")
	h.Set("Cache-Control", "private, no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		w.Write(body)
	}
}

// writeDelta writes a delta with the given status.
func writeDelta(w http.ResponseWriter, r *http.Request, status int, d protocol.Delta) {
	b, err := json.Marshal(d)
	if err != nil { // a delta of plain values always encodes; keep a fallback anyway
		b = []byte(`{"ok":false,"error":{"code":"internal","message":"` + internalMessage + `"}}`)
		status = http.StatusInternalServerError
	}
	writeDocument(w, r, status, b)
}
