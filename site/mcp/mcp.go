// Package mcp serves an Affordances site over the Model Context Protocol,
// so that MCP hosts (desktop assistants, IDEs, agent frameworks) can read
// and operate it. It is built on the official Go SDK and kept out of the
// site package, so that sites without MCP do not depend on it.
//
//	s := site.New(site.Options{Name: "Shop", Auth: auth})
//	// … pages and actions …
//	mcp.Mount(s, "/mcp", nil) // serves MCP at /mcp and lists it in the site index
//
// Every action becomes a tool; two more tools read a page's graph
// (readPage) and the site index (siteIndex). A tool call goes through the
// site's pipeline exactly as a POST to the page does: the same caller (a
// bearer token, or cookies held to the Origin rule), the same rate limit,
// validation, guard and delta, and an audit record with the transport
// "mcp". See [Mount] for the rules of tool names and arguments.
//
// A confirm action runs only once a person approved it through MCP
// elicitation: the server asks the host with the action's summary and runs
// the call on accept. No tool argument confirms. A host that cannot elicit
// gets an error result with confirm_required and the summary, and nothing
// runs. The state handed to the client to resume a confirmation is signed,
// bound to the caller, the action, the page and the exact input, expires,
// and works once.
package mcp

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/affordances-go/affordances/internal/mcptools"
	"github.com/affordances-go/affordances/internal/strictjson"
	"github.com/affordances-go/affordances/site"
)

// Transport is the endpoint's name for its calls and graph reads, in the
// site's audit log and for its Observer.
const Transport site.Transport = "mcp"

// Options configure the MCP endpoint. A nil *Options is the defaults.
type Options struct {
	// Name and Version name the server to MCP clients. Default: the
	// site's name in its index, and "0".
	Name, Version string
	// Secret signs the state that resumes a confirmation. Default: random
	// for the process. Several instances of one site must share it.
	Secret []byte
	// ConfirmTTL is how long a person has to approve a confirm action.
	// Default: 5 minutes.
	ConfirmTTL time.Duration
	// ApprovalWait bounds how long a tool call waits for the person's
	// decision on the site's approval page once they opened it (a
	// URL-mode elicitation accepted); past it, the call answers
	// confirm_required with the page, and the model calls again later.
	// Default: 2 minutes. The endpoint clears the server's write deadline
	// for its requests, so that such a wait is not cut.
	ApprovalWait time.Duration
	// Stateless serves every request without an MCP session. Elicitation
	// then works only with clients of the protocol's multi-round-trip
	// requests (2026-07-28 and later).
	Stateless bool
	// SessionTimeout closes a session idle for that long. Default: 10
	// minutes.
	SessionTimeout time.Duration
	// Logger receives the SDK's and this package's logs. Default:
	// slog.Default().
	Logger *slog.Logger
	// Lean lists three tools instead of one per action, for hosts that
	// load many servers and pay for every tool's description on every
	// request: readPage, siteIndex and callAction, which names the page
	// and the action and carries the input. Calls through callAction go
	// through the same pipeline, errors, confirmation and approvals as
	// the per-action tools.
	Lean bool
	// NoServerCard leaves the MCP server card out of the site's discovery
	// files, and so the endpoint's entry out of the AI catalog, such as
	// when the application serves its own.
	NoServerCard bool
	// CardVersion is the version of the server the card announces.
	// Default: "1.0.0".
	CardVersion string
}

// Mount serves the site's MCP endpoint at path and lists it in the
// site's discovery: the site index, llms.txt, the AI catalog and the MCP
// server card (see discovery.go). Call it with the other registrations,
// before the site serves.
func Mount(s *site.Site, path string, opts *Options) {
	h := Handler(s, opts)
	var o Options
	if opts != nil {
		o = *opts
	}
	s.Extend(site.ExtensionFunc(func(x *site.Extender) {
		x.Door(path, h)
		x.List(listing(s, path, o))
	}))
}

// Handler returns the site's MCP endpoint (Streamable HTTP), to serve
// wherever the site's requests arrive. Its tools are described once, on
// the first request.
func Handler(s *site.Site, opts *Options) http.Handler {
	o := Options{}
	if opts != nil {
		o = *opts
	}
	if o.Version == "" {
		o.Version = "0"
	}
	if len(o.Secret) == 0 {
		o.Secret = make([]byte, 32)
		rand.Read(o.Secret)
	}
	if o.ConfirmTTL <= 0 {
		o.ConfirmTTL = 5 * time.Minute
	}
	if o.SessionTimeout <= 0 {
		o.SessionTimeout = 10 * time.Minute
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	e := &endpoint{site: s, opts: o}
	e.confirm = &mcptools.Confirmation{Secret: o.Secret, Used: mcptools.NewNonces(), TTL: o.ConfirmTTL, Wait: o.ApprovalWait,
		Runner: e.runner}
	return e
}

// endpoint is the MCP endpoint of a site.
type endpoint struct {
	site    *site.Site
	opts    Options
	confirm *mcptools.Confirmation

	once    sync.Once
	tools   map[string]*mcptools.Tool
	list    []*mcptools.Tool   // the tools in the order of the routes
	names   mcptools.ToolNames // the tools' names by route and action
	handler http.Handler
}

// ServeHTTP holds every MCP request to the site's rules before the SDK
// reads it: the Origin rule (refused with 403), the body limit of a call
// (413), and no duplicate keys in the JSON-RPC message (400, a parse
// error), whose tool arguments would otherwise reach the site with the
// last of two values. A request may then last as long as a person takes
// to answer, so the server's write deadline is cleared for it.
func (e *endpoint) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	e.once.Do(e.build)
	if err := e.site.CheckOrigin(r); err != nil {
		var se *site.Error
		if !errors.As(err, &se) || se.Status() != http.StatusUnauthorized {
			http.Error(w, "this MCP endpoint refuses requests from another site, and cookie requests without this site's Origin", http.StatusForbidden)
			return
		}
		// A rejected bearer token: every tool answers unauthorized.
	}
	if r.Method == http.MethodPost {
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, e.site.MaxBodyBytes()))
		var tooBig *http.MaxBytesError
		switch {
		case errors.As(err, &tooBig):
			http.Error(w, fmt.Sprintf("the body is larger than %d bytes", tooBig.Limit), http.StatusRequestEntityTooLarge)
			return
		case err != nil:
			http.Error(w, "the body could not be read", http.StatusBadRequest)
			return
		}
		if _, err := strictjson.ParseObject(body, 64); err != nil {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": nil,
				"error": map[string]any{"code": -32700, "message": "parse error: " + err.Error()}})
			w.Write(b)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
	}
	http.NewResponseController(w).SetWriteDeadline(time.Time{})
	withCaller(e.handler).ServeHTTP(w, r)
}

// build describes every action as a tool and makes the SDK's server and
// handler, once.
func (e *endpoint) build() {
	name := e.opts.Name
	if name == "" {
		name = e.site.Name()
	}
	if name == "" {
		name = "affordances-site"
	}
	instructions := mcptools.Instructions
	if e.opts.Lean {
		instructions = mcptools.LeanInstructions
	}
	srv := sdk.NewServer(&sdk.Implementation{Name: name, Version: e.opts.Version},
		&sdk.ServerOptions{Logger: e.opts.Logger, Instructions: instructions})
	e.tools = map[string]*mcptools.Tool{}
	e.list = mcptools.Describe(e.site.AllActions())
	e.names = mcptools.NamesOf(e.list)
	for _, t := range e.list {
		e.tools[t.Def.Name] = t
		if !e.opts.Lean {
			srv.AddTool(t.Def, e.callTool(t))
		}
	}
	if e.opts.Lean {
		srv.AddTool(mcptools.CallAction, e.callAction)
	}
	srv.AddTool(mcptools.ReadPage, e.readPage)
	srv.AddTool(mcptools.SiteIndex, e.siteIndex)
	srv.AddReceivingMiddleware(e.filterTools)
	e.handler = sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv },
		&sdk.StreamableHTTPOptions{Stateless: e.opts.Stateless, SessionTimeout: e.opts.SessionTimeout,
			Logger: e.opts.Logger, DisableLocalhostProtection: false})
}
