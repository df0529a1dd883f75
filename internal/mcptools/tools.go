// Package mcptools describes the actions of an Affordances site as MCP
// tools: their names, arguments, schemas and hints, and how a tool's
// arguments split into the page and the action's input. The site's MCP
// endpoint (site/mcp) and the afford mcp bridge share it, so that a site
// looks the same to a host either way.
package mcptools

import (
	"encoding/json"
	"strconv"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/affordances-go/affordances/internal/mdpage"
	"github.com/affordances-go/affordances/internal/route"
	"github.com/affordances-go/affordances/internal/strictjson"
	"github.com/affordances-go/affordances/internal/words"
	"github.com/affordances-go/affordances/protocol"
)

// Tool is an action described as an MCP tool, prepared once.
type Tool struct {
	// Def is the tool as tools/list shows it.
	Def *sdk.Tool
	// Route and Action are the action it runs.
	Route  string
	Action protocol.ActionSummary
	// PageArg is the argument that names the page; "" for a route
	// without parameters.
	PageArg string
	page    route.Route // the paths of the route
}

// Reserved tool names: the two reading tools.
const (
	ReadPageName  = "readPage"
	SiteIndexName = "siteIndex"
)

// Describe turns every action of the site into a tool.
//
// Names: a tool is named after its action when no other route has an
// action of that name (and it is not readPage or siteIndex); otherwise
// every action of that name is qualified by its route, as
// ACTION_WHERE, WHERE being the route in one camel-case word
// (route.Route.Qualifier): addToCart on /products/[slug] is
// addToCart_productsBySlug, on /cart addToCart_cart, on / addToCart_home;
// createDial on /dials/new is createDial_dialsNew. Two routes that would
// still share a name get _2, _3… in the order of the routes. Names change
// only when routes or actions do.
//
// Arguments: the action's input properties. A route with parameters adds
// the argument "page", the concrete path to act on (such as
// /products/heavyweight-tee), required and checked against the route; when
// the input has a property of that name already, the argument is
// "pagePath".
func Describe(routes []protocol.IndexRoute) []*Tool {
	count := map[string]int{ReadPageName: 1, SiteIndexName: 1}
	for _, r := range routes {
		for _, a := range r.Actions {
			count[a.Name]++
		}
	}
	var out []*Tool
	taken := map[string]bool{ReadPageName: true, SiteIndexName: true}
	for _, r := range routes {
		rt, err := route.Parse(r.Route)
		if err != nil {
			continue // no page could be checked against it
		}
		for _, a := range r.Actions {
			name := a.Name
			if count[a.Name] > 1 {
				name = a.Name + "_" + rt.Qualifier()
			}
			for n := 2; taken[name]; n++ {
				name = a.Name + "_" + rt.Qualifier() + "_" + strconv.Itoa(n)
			}
			taken[name] = true
			t := &Tool{Route: r.Route, Action: a, page: rt}
			if rt.HasParams() {
				t.PageArg = "page"
				if hasProperty(a.Input, "page") {
					t.PageArg = "pagePath"
				}
			}
			t.Def = &sdk.Tool{
				Name:        name,
				Title:       words.FromIdentifier(a.Name),
				Description: toolDescription(r, a),
				InputSchema: withApproval(inputSchema(a.Input, t.PageArg, rt), a.Approval),
				Annotations: annotations(a),
			}
			out = append(out, t)
		}
	}
	return out
}

// toolDescription is what a model reads to choose the tool: the action's
// description, its route, when it is available and who may call it. It is
// kept short, since a host sends every tool's description with every
// request: the route's own description is the site index's, and the page
// argument describes itself.
func toolDescription(r protocol.IndexRoute, a protocol.ActionSummary) string {
	var b strings.Builder
	b.WriteString(a.Description)
	if b.Len() > 0 && !strings.HasSuffix(a.Description, ".") {
		b.WriteString(".")
	}
	b.WriteString(" On " + r.Route + ".")
	if a.Guard != "" {
		b.WriteString(" Only when " + a.Guard + ".")
	}
	switch a.Expose {
	case protocol.ExposeSession:
		b.WriteString(" Needs sign-in.")
	case protocol.ExposeConfirm:
		b.WriteString(" Needs sign-in and the person's approval.")
	}
	return strings.TrimSpace(b.String())
}

// inputSchema is the action's input schema for a model: its properties
// without their titles (labels for a person's form, which the
// descriptions say again for a model), and the page argument added for a
// route with parameters. The page argument carries no pattern: the tool
// checks it against the route and names the route in its error.
func inputSchema(in json.RawMessage, pageArg string, rt route.Route) json.RawMessage {
	var s map[string]any
	if json.Unmarshal(in, &s) != nil || s == nil {
		if pageArg == "" {
			return in
		}
		s = map[string]any{"type": "object"}
	}
	props, _ := s["properties"].(map[string]any)
	titled := dropTitles(props)
	if pageArg == "" && !titled {
		return in
	}
	if pageArg != "" {
		if props == nil {
			props = map[string]any{}
		}
		props[pageArg] = map[string]any{"type": "string", "description": "path of a " + rt.String() + " page"}
		s["properties"] = props
		req, _ := s["required"].([]any)
		s["required"] = append([]any{pageArg}, req...)
	}
	b, err := json.Marshal(s)
	if err != nil {
		return in
	}
	return b
}

// dropTitles removes the title of each property schema in props, and of
// the properties and items within them, at any depth; it reports whether
// it removed one. A property that is itself named "title" stays: only the
// keyword goes.
func dropTitles(props map[string]any) bool {
	dropped := false
	for _, p := range props {
		if dropTitle(p) {
			dropped = true
		}
	}
	return dropped
}

// dropTitle removes the title keyword of the schema s and of the schemas
// it holds for its properties, its items and its alternatives.
func dropTitle(s any) bool {
	m, ok := s.(map[string]any)
	if !ok {
		return false
	}
	_, dropped := m["title"]
	delete(m, "title")
	if props, ok := m["properties"].(map[string]any); ok && dropTitles(props) {
		dropped = true
	}
	if dropTitle(m["items"]) {
		dropped = true
	}
	for _, k := range []string{"prefixItems", "anyOf", "oneOf", "allOf"} {
		list, _ := m[k].([]any)
		for _, sub := range list {
			if dropTitle(sub) {
				dropped = true
			}
		}
	}
	return dropped
}

// annotations give a host the hints MCP has for an action. The title is
// the tool's own, not repeated here.
func annotations(a protocol.ActionSummary) *sdk.ToolAnnotations {
	no, yes := false, true
	an := &sdk.ToolAnnotations{ReadOnlyHint: a.ReadOnly, OpenWorldHint: &no}
	if !a.ReadOnly {
		if a.Expose == protocol.ExposeConfirm {
			an.DestructiveHint = &yes
		} else {
			an.DestructiveHint = &no
		}
	}
	return an
}

func hasProperty(schema json.RawMessage, name string) bool {
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	json.Unmarshal(schema, &s)
	_, ok := s.Properties[name]
	return ok
}

// ApprovalArg is the argument of an action with approval that names the
// approval the person gave on the site (its page's URL, or its id), after
// an earlier call answered with that page. It is no confirmation by
// itself: the site runs the call only if the person approved exactly it.
const ApprovalArg = "approval"

// withApproval adds the approval argument to the schema of an action with
// approval.
func withApproval(schema json.RawMessage, approval bool) json.RawMessage {
	if !approval {
		return schema
	}
	var s map[string]any
	if json.Unmarshal(schema, &s) != nil || s == nil {
		return schema
	}
	props, _ := s["properties"].(map[string]any)
	if props == nil {
		props = map[string]any{}
	}
	props[ApprovalArg] = map[string]any{"type": "string",
		"description": "the approval page an earlier call gave, once the person approved there; omit at first"}
	s["properties"] = props
	b, err := json.Marshal(s)
	if err != nil {
		return schema
	}
	return b
}

// Arguments splits a tool's arguments into the page, the action's input
// and, for an action with approval, the approval. A page argument that is
// missing, not a string or not a page of the route is an invalid_input
// error on that argument.
//
// Arguments with a key repeated in one object (or two keys that differ
// only in case) are refused, as the site's call decoder refuses them: a
// host could show one value and the site act on the other.
func (t *Tool) Arguments(raw json.RawMessage) (page string, input json.RawMessage, approval string, err *protocol.Error) {
	if len(raw) == 0 || string(raw) == "null" {
		raw = json.RawMessage(`{}`)
	}
	if _, perr := strictjson.ParseObject(raw, 64); perr != nil {
		return "", nil, "", &protocol.Error{Code: protocol.CodeInvalidInput, Message: "the arguments were not accepted: " + perr.Error()}
	}
	if t.Action.Approval {
		var args map[string]json.RawMessage
		if json.Unmarshal(raw, &args) == nil {
			if v, ok := args[ApprovalArg]; ok {
				json.Unmarshal(v, &approval)
				delete(args, ApprovalArg)
				raw, _ = json.Marshal(args)
			}
		}
	}
	page, input, err = t.arguments(raw)
	return page, input, approval, err
}

func (t *Tool) arguments(raw json.RawMessage) (page string, input json.RawMessage, err *protocol.Error) {
	if t.PageArg == "" {
		return t.Route, raw, nil
	}
	invalid := func(msg string) *protocol.Error {
		return &protocol.Error{Code: protocol.CodeInvalidInput, Message: "the arguments were not accepted",
			Issues: []protocol.Issue{{Path: "/" + t.PageArg, Message: msg, Keyword: "page"}}}
	}
	var args map[string]json.RawMessage
	if json.Unmarshal(raw, &args) != nil {
		return "", nil, &protocol.Error{Code: protocol.CodeInvalidInput, Message: "the arguments must be an object"}
	}
	v, ok := args[t.PageArg]
	if !ok {
		return "", nil, invalid("is required: the path of a page of " + t.Route)
	}
	if json.Unmarshal(v, &page) != nil || !t.page.Match(page) {
		return "", nil, invalid("must be the path of a page of " + t.Route)
	}
	delete(args, t.PageArg)
	input, _ = json.Marshal(args)
	return page, input, nil
}

// closedWorld is every tool's openWorldHint: a site's tools act on the
// site alone.
var closedWorld = false

// ReadPage and SiteIndex are the two reading tools.
var (
	ReadPage = &sdk.Tool{
		Name:        ReadPageName,
		Title:       "Read a page",
		Description: "Read a page by its path (such as /): what it shows, the actions there (available now, or why not) and where to go next.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"page":{"type":"string"}},"required":["page"],"additionalProperties":false}`),
		Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: &closedWorld},
	}
	SiteIndex = &sdk.Tool{
		Name:        SiteIndexName,
		Title:       "Site index",
		Description: "List the site's routes, what each is for and its actions, to plan without opening pages.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{},"additionalProperties":false}`),
		Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: &closedWorld},
	}
)

// Instructions tell a host how the tools of a site fit together.
const Instructions = `This server is an Affordances site: every page has a graph (what it shows and what can be done there), read with readPage; siteIndex lists every route and its actions. Each other tool is an action. Actions whose route has parameters take the concrete page in the argument "page". Confirm actions ask the person for approval; a declined or unanswered approval runs nothing.`

// ErrorResult is a tool result with isError: true whose structured content
// is the failed delta, {"ok": false, "error": {code, message, issues}},
// so that a model can correct its call; the text repeats it. A failed
// delta rather than the bare error object, so that the structured content
// of every result of a tool has one shape: a delta.
func ErrorResult(pe protocol.Error) *sdk.CallToolResult {
	var text strings.Builder
	text.WriteString(string(pe.Code) + ": " + pe.Message)
	for _, is := range pe.Issues {
		text.WriteString("\n" + is.Path + ": " + is.Message)
	}
	return &sdk.CallToolResult{IsError: true, StructuredContent: protocol.Delta{Error: &pe}, Content: []sdk.Content{&sdk.TextContent{Text: text.String()}}}
}

// DeltaResult is the result of a successful call: the delta as structured
// content, for a program, and as Markdown in the text (mdpage.Delta: its
// message, output, what changed and where to go next), for the model. A
// host hands the model one or the other, most the text; either says
// everything.
func DeltaResult(d protocol.Delta, run mdpage.Runner) *sdk.CallToolResult {
	return &sdk.CallToolResult{StructuredContent: d, Content: []sdk.Content{&sdk.TextContent{Text: mdpage.Delta(d, run)}}}
}

// GraphResult is the result of readPage: the page as Markdown in the text
// (mdpage.Render: its md or its entities, its actions and how to run them
// with run, its links), for the model, and the graph as structured content,
// for a program. The md is in the text only: a host that hands the model
// both would pay for it twice.
func GraphResult(g *protocol.Graph, run mdpage.Runner) *sdk.CallToolResult {
	without := *g
	without.MD = ""
	return &sdk.CallToolResult{StructuredContent: &without, Content: []sdk.Content{&sdk.TextContent{Text: mdpage.Render(*g, g.Page, run)}}}
}

// ToolNames are the names of the tools that run the actions, by route and
// action: built once from the tool list (NamesOf), read on every page.
type ToolNames map[string]map[string]string

// NamesOf indexes tools by route and action.
func NamesOf(tools []*Tool) ToolNames {
	names := ToolNames{}
	for _, t := range tools {
		if names[t.Route] == nil {
			names[t.Route] = map[string]string{}
		}
		names[t.Route][t.Action.Name] = t.Def.Name
	}
	return names
}

// PageRunner is how a model runs the actions of a page of route over MCP:
// each by its own tool (names), which carries its input schema (named
// beside the action when its name is qualified); or, on the lean list,
// with callAction, which carries the input that the page's text then
// writes. Neither ends with a line on how to run them: the server's
// instructions and the tools' descriptions say it once, not on every read.
func PageRunner(names ToolNames, route string, lean bool) mdpage.Runner {
	if lean {
		return mdpage.Runner{Inputs: true}
	}
	byAction := names[route]
	return mdpage.Runner{Tool: func(action string) string { return byAction[action] }}
}

// IndexResult is the result of siteIndex: the index as Markdown (each
// route, what it is for, its actions, who may run them and their input
// in a line; mdpage.Index), and no structured content. A model plans
// from the text; the JSON of the index, with every schema, was the
// largest thing an agent on the lean list read (and a host that hands the
// model both a result's text and its structured content paid for it
// twice). A program reads the JSON at /.well-known/affordances.json.
func IndexResult(idx protocol.SiteIndex) *sdk.CallToolResult {
	text := mdpage.Index(idx) + "\nreadPage gives a page's actions with their input schemas; a route with [parameters] is called on a concrete page of it.\n"
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: text}}}
}
