package site

import (
	"bytes"
	"crypto/sha512"
	_ "embed" // the WebMCP script
	"encoding/base64"
	"encoding/json"
	"html/template"
	"net/http"
	"strconv"

	"github.com/affordances-go/affordances/protocol"
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

// withWebMCPScript adds before a page's </head> the tools of the actions
// the person can run now (a JSON data block, which the script registers
// at once, with no request of its own and no race with an agent that
// lists the tools as soon as the page is loaded) and the script's tag.
func withWebMCPScript(page []byte, actions []protocol.ActionDescriptor) []byte {
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
	out := make([]byte, 0, len(page)+len(data)+len(WebMCPScriptTag)+64)
	out = append(out, page[:i]...)
	out = append(out, `<script type="application/json" id="affordances-webmcp">`...)
	out = append(out, data...)
	out = append(out, `</script>`...)
	out = append(out, WebMCPScriptTag...)
	return append(out, page[i:]...)
}
