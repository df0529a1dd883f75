// Package webmcp is the script by which a page registers its available
// actions as WebMCP tools in the person's browser, and what a page
// rendered by the library gains to load it (package site exports the
// script's path, integrity and tag).
package webmcp

import (
	"bytes"
	_ "embed" // the WebMCP script
	"encoding/json"
	"net/http"

	"github.com/affordances-go/affordances/internal/jsfile"
	"github.com/affordances-go/affordances/protocol"
)

//go:embed webmcp.js
var script []byte

// Path is where a site with Options.WebMCP serves the script.
const Path = "/_affordances/webmcp.js"

// Integrity is the script's Subresource Integrity value,
// "sha384-" and the base64 of its SHA-384, for a page that writes the
// script's tag itself and for a reviewer who checks what is served.
var Integrity = jsfile.Integrity(script)

// Tag is the script's tag, with its integrity, for the <head>
// of a page the application renders itself (the site adds it to the pages
// it renders). It is inert in a browser without WebMCP.
var Tag = jsfile.Tag(Path, Integrity)

// Serve serves the script, cached by browsers for an hour.
func Serve(w http.ResponseWriter, r *http.Request) { jsfile.Serve(w, r, script) }

// Inject adds before a page's </head> the tools of the actions
// the person can run now (a JSON data block, which the script registers
// at once, with no request of its own and no race with an agent that
// lists the tools as soon as the page is loaded) and the script's tag.
func Inject(page []byte, actions []protocol.ActionDescriptor) []byte {
	i := bytes.Index(page, []byte("</head>"))
	if i < 0 {
		return page
	}
	tools := make([]protocol.ActionDescriptor, 0, len(actions))
	for _, a := range actions {
		if a.Available {
			tools = append(tools, a)
		}
	}
	data, err := json.Marshal(tools) // escapes <, > and &: safe in a script element
	if err != nil {
		data = []byte("[]")
	}
	out := make([]byte, 0, len(page)+len(data)+len(Tag)+64)
	out = append(out, page[:i]...)
	out = append(out, `<script type="application/json" id="affordances-webmcp">`...)
	out = append(out, data...)
	out = append(out, `</script>`...)
	out = append(out, Tag...)
	return append(out, page[i:]...)
}
