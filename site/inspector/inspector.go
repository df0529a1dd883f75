// Package inspector serves a development page for a site's authors: a
// page of the site and its graph side by side, the graph's size in
// tokens, each action with its schemas and its availability for the
// person looking, and a form that runs any action. It is one more door
// built on the site's exported API alone: every call goes through
// site.Execute, the pipeline every other door uses (the same
// authentication, Origin rule, limits and audit, with transport
// "inspector"). Mount it only in development.
package inspector

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"html/template"
	"log/slog"
	"net/http"
	"strings"
	"sync"

	"github.com/affordances-go/affordances/internal/htmlform"
	"github.com/affordances-go/affordances/internal/schema"
	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site"
)

// Path is where Mount serves the inspector:
// Path?page=/products/heavyweight-tee.
const Path = "/_affordances/inspector"

// Transport is the inspector's name for its calls and graph reads, in the
// site's audit log and for its Observer.
const Transport site.Transport = "inspector"

// maxForm bounds what the inspector's form may post.
const maxForm = 1 << 20

// Mount serves the inspector of s at Path (and its stylesheet beside it).
// Call it with the other registrations, before the site serves.
func Mount(s *site.Site) {
	in := &inspector{site: s}
	s.Mount(Path, http.HandlerFunc(in.serve))
	s.Mount(Path+".css", http.HandlerFunc(serveCSS))
}

// inspector is the inspector of one site.
type inspector struct {
	site *site.Site
	// The output schemas by route and action, read once: graphs leave
	// them out, and the site's routes do not change once it serves.
	once sync.Once
	outs map[[2]string]json.RawMessage
}

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

// serve shows a page of the site to its author: the HTML page
// and its graph side by side, the graph's size in tokens, each action
// with its schema and its availability for the person looking, and a
// form that runs any action through the normal pipeline (same
// authentication, same Origin rule, same limits, audited with transport
// "inspector").
func (in *inspector) serve(w http.ResponseWriter, hr *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	if hr.Method != http.MethodGet && hr.Method != http.MethodPost {
		w.Header().Set("Allow", "GET, POST")
		http.Error(w, "Method Not Allowed", http.StatusMethodNotAllowed)
		return
	}
	hr.Body = http.MaxBytesReader(w, hr.Body, maxForm)
	path := hr.FormValue("page")
	if path == "" || !htmlform.LocalPath(path) {
		path = "/"
	}
	d := inspectorData{Path: path, Caller: "anonymous", CSS: Path + ".css"}
	if r, err := in.site.NewRequest(hr); err == nil && r.Caller.Mode != "" {
		d.Caller = string(r.Caller.Mode)
	}
	if hr.Method == http.MethodPost {
		in.call(w, hr, &d)
	}
	g, err := in.site.ReadGraph(hr, path, Transport)
	if err != nil {
		d.Error = publicMessage(err)
	} else {
		b, _ := json.MarshalIndent(g, "", "  ")
		d.Graph, d.Bytes = string(b), len(mustCompact(g))
		d.Tokens = d.Bytes / 4
		outputs := in.outputs()
		for _, a := range g.Actions {
			output := outputs[[2]string{g.Route, a.Name}] // graphs leave it out; the index has it
			d.Actions = append(d.Actions, inspectedAction{ActionDescriptor: a, InputSchema: indent(a.Input),
				OutputSchema: indent(output), Example: exampleInput(a.Input), Confirm: a.Expose == protocol.ExposeConfirm})
		}
	}
	var buf bytes.Buffer
	if err := inspectorView.Execute(&buf, d); err != nil {
		slog.ErrorContext(hr.Context(), "affordances: rendering the inspector", "err", err)
		http.Error(w, "Internal Server Error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Write(buf.Bytes())
}

// outputs returns the output schemas of the site's actions by route and
// action (graphs leave them out; the site's routes have them).
func (in *inspector) outputs() map[[2]string]json.RawMessage {
	in.once.Do(func() {
		in.outs = map[[2]string]json.RawMessage{}
		for _, r := range in.site.AllActions() {
			for _, a := range r.Actions {
				in.outs[[2]string{r.Route, a.Name}] = a.Output
			}
		}
	})
	return in.outs
}

// call runs the action the inspector's form posted, through Execute, and
// keeps its delta (or its failure, as a delta) to show.
func (in *inspector) call(w http.ResponseWriter, hr *http.Request, d *inspectorData) {
	d.Tried = hr.PostFormValue("action")
	input := strings.TrimSpace(hr.PostFormValue("input"))
	if input == "" {
		input = "{}"
	}
	res, err := in.site.Execute(hr, site.Call{Page: d.Path, Transport: Transport,
		Call: protocol.Call{Action: d.Tried, Input: json.RawMessage(input), Confirm: hr.PostFormValue("confirm") == "true"}})
	delta := res.Delta
	if e := (*site.Error)(nil); errors.As(err, &e) {
		delta = e.Delta()
	} else if err != nil {
		delta = protocol.Delta{Error: &protocol.Error{Code: protocol.CodeInternal, Message: "The call failed; the site's log says why."}}
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
	if e, ok := err.(*site.Error); ok {
		return string(e.Code()) + ": " + e.Message()
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

// serveCSS serves the inspector's stylesheet.
func serveCSS(w http.ResponseWriter, hr *http.Request) {
	w.Header().Set("Content-Type", "text/css; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Write([]byte(inspectorCSS))
}
