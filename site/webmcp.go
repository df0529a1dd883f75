package site

import (
	"bytes"
	"crypto/sha512"
	_ "embed" // the WebMCP script
	"encoding/base64"
	"html/template"
	"net/http"
	"strconv"
)

// WebMCP, the browser's door for agents: a page registers tools that an
// agent in the person's browser lists and calls. Every form the library
// writes declares its action as a tool (toolname, tooldescription, and
// toolautosubmit but for confirm actions); with Options.WebMCP the site
// also serves a script that registers the page's other available actions
// from its graph (see webmcp.js), and adds its tag to the pages it renders.

//go:embed webmcp.js
var webmcpJS []byte

// WebMCPScriptPath is where a site with Options.WebMCP serves its script.
const WebMCPScriptPath = "/_affordances/webmcp.js"

// WebMCPScriptIntegrity is the script's Subresource Integrity value,
// "sha384-" and the base64 of its SHA-384, for a page that writes the
// script's tag itself and for a reviewer who checks what is served.
var WebMCPScriptIntegrity = func() string {
	h := sha512.Sum384(webmcpJS)
	return "sha384-" + base64.StdEncoding.EncodeToString(h[:])
}()

// WebMCPScriptTag is the script's tag, with its integrity, for the <head>
// of a page the application renders itself (the site adds it to the pages
// it renders). It is inert in a browser without WebMCP.
var WebMCPScriptTag = template.HTML(`<script src="` + WebMCPScriptPath + `" integrity="` + WebMCPScriptIntegrity + `" defer></script>`)

// serveWebMCPScript serves the script, cached by browsers for an hour.
func serveWebMCPScript(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Type", "text/javascript; charset=utf-8")
	h.Set("Cache-Control", "public, max-age=3600")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Length", strconv.Itoa(len(webmcpJS)))
	if r.Method != http.MethodHead {
		w.Write(webmcpJS)
	}
}

// withWebMCPScript adds the script's tag before a page's </head>.
func withWebMCPScript(page []byte) []byte {
	i := bytes.Index(page, []byte("</head>"))
	if i < 0 {
		return page
	}
	out := make([]byte, 0, len(page)+len(WebMCPScriptTag))
	out = append(out, page[:i]...)
	out = append(out, WebMCPScriptTag...)
	return append(out, page[i:]...)
}
