package site

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"html/template"
	"net/http"
	"strings"

	"github.com/affordances-go/affordances/internal/schema"
	"github.com/affordances-go/affordances/protocol"
)

// InspectorPath is where the inspector is served when
// [Options.Inspector] is on: InspectorPath?page=/products/heavyweight-tee.
const InspectorPath = "/_affordances/inspector"

//go:embed inspector.html
var inspectorHTML string

// inspectorCSS is served beside the page rather than inline, so that a
// site whose Content-Security-Policy forbids inline styles shows it too.
//
//go:embed inspector.css
var inspectorCSS string

var inspectorView = template.Must(template.New("inspector").Parse(inspectorHTML))

// inspectorData is what the inspector page shows.
type inspectorData struct {
	Path    string // the page inspected
	Graph   string // its graph, indented
	Tokens  int    // the graph's estimated tokens (bytes / 4)
	Bytes   int
	Error   string // why the graph could not be read
	Actions []inspectedAction
	Caller  string // who the graph is for: anonymous, cookie, bearer

	Tried  string // the action the form ran
	Result string // its delta, indented
	CSS    string // the stylesheet's path
}

// inspectedAction is one action as the inspector shows it.
type inspectedAction struct {
	protocol.ActionDescriptor
	InputSchema  string
	OutputSchema string
	Example      string // an input to start from: required fields with their example or default
	Confirm      bool
}

// serveInspector shows a page of the site to its author: the HTML page
// and its graph side by side, the graph's size in tokens, each action
// with its schema and its availability for the person looking, and a
// form that runs any action through the normal pipeline (same
// authentication, same Origin rule, same limits, audited with transport
// "inspector"). It exists only when Options.Inspector is on.
func (s *Site) serveInspector(w http.ResponseWriter, hr *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	hr.Body = http.MaxBytesReader(w, hr.Body, s.opts.MaxBodyBytes)
	path := hr.FormValue("page")
	if path == "" || !isLocalPath(path) {
		path = "/"
	}
	d := inspectorData{Path: path, Caller: "anonymous", CSS: InspectorPath + ".css"}
	if r, err := s.NewRequest(hr); err == nil && r.Caller.Mode != "" {
		d.Caller = string(r.Caller.Mode)
	}
	if hr.Method == http.MethodPost {
		s.inspectorCall(w, hr, &d)
	}
	g, err := s.ReadGraph(hr, path, TransportInspector)
	if err != nil {
		d.Error = publicMessage(err)
	} else {
		b, _ := json.MarshalIndent(g, "", "  ")
		d.Graph, d.Bytes = string(b), len(mustCompact(g))
		d.Tokens = d.Bytes / 4
		page, _ := s.route(hr, path, http.MethodGet)
		for _, a := range g.Actions {
			var output json.RawMessage // graphs leave it out; the index has it
			if page != nil && page.byName[a.Name] != nil {
				output = page.byName[a.Name].summary.Output
			}
			d.Actions = append(d.Actions, inspectedAction{ActionDescriptor: a, InputSchema: indent(a.Input),
				OutputSchema: indent(output), Example: exampleInput(a.Input), Confirm: a.Expose == protocol.ExposeConfirm})
		}
	}
	var buf bytes.Buffer
	if err := inspectorView.Execute(&buf, d); err != nil {
		s.opts.Logger.ErrorContext(hr.Context(), "affordances: rendering the inspector", "err", err)
		http.Error(w, "Internal Server Error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Write(buf.Bytes())
}

// inspectorCall runs the action the inspector's form posted, through
// Execute, and keeps its delta (or its failure, as a delta) to show.
func (s *Site) inspectorCall(w http.ResponseWriter, hr *http.Request, d *inspectorData) {
	d.Tried = hr.PostFormValue("action")
	input := strings.TrimSpace(hr.PostFormValue("input"))
	if input == "" {
		input = "{}"
	}
	res, err := s.Execute(hr, Call{Page: d.Path, Transport: TransportInspector,
		Call: protocol.Call{Action: d.Tried, Input: json.RawMessage(input), Confirm: hr.PostFormValue("confirm") == "true"}})
	delta := res.Delta
	if err != nil {
		e, ok := err.(*Error)
		if !ok {
			e = newInternalError()
		}
		delta = e.delta()
	}
	for k, vs := range res.Header {
		for _, v := range vs {
			w.Header().Add(k, v) // an action's cookies, such as signIn's session
		}
	}
	b, _ := json.MarshalIndent(delta, "", "  ")
	d.Result = string(b)
}

// publicMessage is what a person may read of an error.
func publicMessage(err error) string {
	if e, ok := err.(*Error); ok {
		return string(e.code) + ": " + e.message
	}
	return "the graph could not be read"
}

func mustCompact(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

func indent(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var b bytes.Buffer
	if json.Indent(&b, raw, "", "  ") != nil {
		return string(raw)
	}
	return b.String()
}

// exampleInput writes an input to start from: each required property
// with its example, its default, or an empty value of its type.
func exampleInput(raw json.RawMessage) string {
	var s schema.Schema
	if len(raw) == 0 || json.Unmarshal(raw, &s) != nil {
		return "{}"
	}
	out := map[string]any{}
	for _, p := range s.Properties {
		required := false
		for _, r := range s.Required {
			required = required || r == p.Name
		}
		if !required {
			continue
		}
		switch {
		case len(p.Schema.Examples) > 0:
			out[p.Name] = p.Schema.Examples[0]
		case p.Schema.Default != nil:
			out[p.Name] = p.Schema.Default
		case len(p.Schema.Enum) > 0:
			out[p.Name] = p.Schema.Enum[0]
		default:
			out[p.Name] = map[string]any{"integer": 0, "number": 0, "boolean": false, "array": []any{}, "object": map[string]any{}}[p.Schema.TypeName()]
			if out[p.Name] == nil {
				out[p.Name] = ""
			}
		}
	}
	b, _ := json.MarshalIndent(out, "", "  ")
	return string(b)
}

// serveInspectorCSS serves the inspector's stylesheet.
func (s *Site) serveInspectorCSS(w http.ResponseWriter, hr *http.Request) {
	w.Header().Set("Content-Type", "text/css; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Write([]byte(inspectorCSS))
}
