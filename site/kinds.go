package site

import "github.com/affordances-go/affordances/protocol"

// Transport names the door a call or a graph read came through, for the
// audit log and the Observer. Who calls decides what a call may do; the
// transport only says how it arrived.
type Transport string

// The site's transports.
const (
	// TransportAgent is an agent's POST of a call, or its GET of a graph.
	TransportAgent Transport = "agent"
	// TransportForm is an HTML form posted to the page.
	TransportForm Transport = "form"
	// TransportMCP is the MCP endpoint.
	TransportMCP Transport = "mcp"
	// TransportInspector is the development inspector.
	TransportInspector Transport = "inspector"
	// TransportOther is a site's own transport, through Execute or
	// ReadGraph, that did not name itself.
	TransportOther Transport = "other"
)

// CallerKind is what kind of credential a caller brought.
type CallerKind string

// The kinds of caller.
const (
	CallerAnonymous CallerKind = "anonymous"
	CallerCookie    CallerKind = "cookie"
	CallerBearer    CallerKind = "bearer"
)

// callerKind is the kind of a caller authenticated in mode m.
func callerKind(m protocol.AuthMode) CallerKind {
	switch m {
	case protocol.AuthCookie:
		return CallerCookie
	case protocol.AuthBearer:
		return CallerBearer
	}
	return CallerAnonymous
}
