// Package jsfile serves a script of the library's (the WebMCP script, an
// extension's) the way every one of them is served: its Subresource
// Integrity value, its tag, and its answer, cached by browsers for an
// hour.
package jsfile

import (
	"crypto/sha512"
	"encoding/base64"
	"html"
	"html/template"
	"net/http"
	"strconv"
)

// Integrity is js's Subresource Integrity value: "sha384-" and the base64
// of its SHA-384.
func Integrity(js []byte) string {
	h := sha512.Sum384(js)
	return "sha384-" + base64.StdEncoding.EncodeToString(h[:])
}

// Tag is the tag that loads the script at path with its integrity, for a
// page's head.
func Tag(path, integrity string) template.HTML {
	return template.HTML(`<script src="` + html.EscapeString(path) + `" integrity="` + integrity + `" defer></script>`)
}

// Serve answers a GET or HEAD of the script.
func Serve(w http.ResponseWriter, r *http.Request, js []byte) {
	h := w.Header()
	h.Set("Content-Type", "text/javascript; charset=utf-8")
	h.Set("Cache-Control", "public, max-age=3600")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Length", strconv.Itoa(len(js)))
	if r.Method != http.MethodHead {
		w.Write(js)
	}
}
