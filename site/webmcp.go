package site

import (
	"html/template"

	"github.com/affordances-go/affordances/internal/webmcp"
)

// WebMCP, the browser's door for agents: a page registers tools that an
// agent in the person's browser lists and calls. Every form the library
// writes declares its action as a tool (toolname, tooldescription, and
// toolautosubmit for read-only actions alone: a form of an action that
// changes something is filled by the agent and sent by the person's
// press of its button); with Options.WebMCP the site
// also serves a script that registers the page's other available actions
// from its graph, and adds its tag to the pages it renders.

var (
	// WebMCPScriptIntegrity is the script's Subresource Integrity value,
	// "sha384-" and the base64 of its SHA-384, for a page that writes the
	// script's tag itself and for a reviewer who checks what is served.
	WebMCPScriptIntegrity = webmcp.Integrity
	// WebMCPScriptTag is the script's tag, with its integrity, for the
	// <head> of a page the application renders itself (the site adds it
	// to the pages it renders). It is inert in a browser without WebMCP.
	WebMCPScriptTag template.HTML = webmcp.Tag
)
