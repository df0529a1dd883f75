// Package webmcp is the door of an agent that works in the person's own
// browser: the pages a site renders register the actions the person can
// run now as WebMCP tools, which the browser's agent lists and calls.
//
// Plug it in with [Mount] (or give [Extension] to site.New). The site
// then serves the library's script at [ScriptPath], and every page it
// renders carries, before its </head>, the tools of the actions an agent
// may call there (a JSON data block the script registers at once, with
// no request of its own and no race with an agent that lists the tools as
// soon as the page has loaded) and the script's tag. The site index lists
// the "webmcp" extension.
//
// A tool's call is the agent's call of the protocol, with the person's
// cookie and the site's Origin, through the same pipeline as any other,
// and a confirm action never runs from a tool: the person confirms it on
// the page. The forms the library writes declare their own tools (filled
// in by the agent, sent by the person's press of the button) whether or
// not this door is plugged in.
package webmcp

import (
	_ "embed" // the WebMCP script
	"encoding/json"
	"html/template"

	"github.com/affordances-go/affordances/internal/jsfile"
	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site"
)

//go:embed webmcp.js
var script []byte

// ScriptPath is where a site with this door serves its script.
const ScriptPath = "/_affordances/webmcp.js"

var (
	// ScriptIntegrity is the script's Subresource Integrity value,
	// "sha384-" and the base64 of its SHA-384, for a page that writes the
	// script's tag itself and for a reviewer who checks what is served.
	ScriptIntegrity = jsfile.Integrity(script)
	// ScriptTag is the script's tag, with its integrity, for the <head>
	// of a page the application renders itself (the site adds it to the
	// pages it renders); the script then reads the page's graph. It is
	// inert in a browser without WebMCP.
	ScriptTag = jsfile.Tag(ScriptPath, ScriptIntegrity)
)

// Extension is the WebMCP door as a [site.Extension], for the list
// site.New takes.
var Extension site.Extension = site.ExtensionFunc(extend)

// Mount plugs the WebMCP door into s, which has not started serving.
func Mount(s *site.Site) { s.Extend(Extension) }

// extend serves the script, puts each rendered page's tools and the
// script's tag in its head, and lists the extension in the site index.
func extend(x *site.Extender) {
	x.ServeScript(ScriptPath, script)
	x.Head(pageTools)
	x.List(site.Listing{Index: func(idx *protocol.SiteIndex) {
		idx.Extensions = append(idx.Extensions, protocol.ExtensionWebMCP)
	}})
}

// pageTools is what a rendered page's head gains: the tools of the
// actions an agent may call on it and can run now, then the script's tag.
func pageTools(v *site.View) template.HTML {
	actions := v.AgentActions()
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
	return template.HTML(`<script type="application/json" id="affordances-webmcp">`+string(data)+`</script>`) + ScriptTag
}
