package tasks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/affordances-go/affordances/protocol"
)

// Agent is one path an agent takes to the store. A task's script is
// written once against it; each path turns its steps into what an agent
// on that path sends and reads, and logs it.
type Agent interface {
	// Read reads a page by its path (with its query, such as /?q=merino).
	Read(ctx context.Context, page string) (*protocol.Graph, error)
	// Call runs an action of a page. A call that needs the person goes to
	// them the way the path allows (the approval page the site names),
	// and completes once they approved. A failed call is a *CallError.
	Call(ctx context.Context, page, action string, input any) (*protocol.Delta, error)
	// Route is the route of an action when the path told the agent before
	// it read any page (the site index, the tool list), else "".
	Route(action string) string
	// Searchable reports whether the path told the agent that the catalog
	// can be searched with ?q= (the site index says so; a page does not).
	Searchable() bool
	// SignIn gives the agent a session of the person's own, with their
	// password, for what a token may not do (tokens of its own).
	SignIn(ctx context.Context, email, password string) error
	// Log is what the agent sent and read.
	Log() *Log
}

// CallError is a call the site refused or could not run.
type CallError struct {
	Code    protocol.ErrorCode
	Message string
}

func (e *CallError) Error() string { return string(e.Code) + ": " + e.Message }

// Log is what an agent sent and read on one task: each exchange's text
// as a model would write and read it, and how many there were.
type Log struct {
	mu sync.Mutex
	// Exchanges counts requests (or tool calls).
	Exchanges int
	// Written and Read are the texts sent and received.
	Written, Read []string
	// Parts are the same texts by what they were for (see [Part]): where
	// a path's tokens go.
	Parts map[Part][]string
	// Calls counts the calls of each action the agent made.
	Calls map[string]int
	// HostList is, on the browser paths, the browser host's whole tool
	// list as its server lists it; the agent reads (first in Read) only
	// the part the host passes on.
	HostList string
}

// Part is what an exchange's text was for.
type Part string

// The parts of what an agent writes and reads.
const (
	// PartList is what tells the agent what it can do before it reads a
	// page: a tool list (the host's, the MCP server's, the page tools
	// that appear), or the site index.
	PartList Part = "list"
	// PartRead is reading a page: the request and the page as read (a
	// graph, Markdown, a snapshot).
	PartRead Part = "reads"
	// PartCall is what the agent writes to run an action: the request, or
	// the tool call with its arguments (a click, a typed text).
	PartCall Part = "calls"
	// PartAnswer is what the agent reads back from a call: the delta, the
	// tool's result, the snapshot after a click.
	PartAnswer Part = "answers"
)

// AllParts are the parts in the order the bench prints them.
var AllParts = []Part{PartList, PartRead, PartCall, PartAnswer}

// add logs one exchange of kind part: a page read (PartRead, both texts
// count as reading), a call (written is PartCall, read PartAnswer), or a
// list (PartList).
func (l *Log) add(part Part, written, read string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.Exchanges++
	if written != "" {
		l.Written = append(l.Written, written)
		w := part
		if part == PartAnswer {
			w = PartCall
		}
		l.part(w, written)
	}
	if read != "" {
		l.Read = append(l.Read, read)
		l.part(part, read)
	}
}

// listed logs a list the agent reads without asking for it (the host's
// tool list, page tools that appear), which is no exchange.
func (l *Log) listed(text string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.Read = append(l.Read, text)
	l.part(PartList, text)
}

func (l *Log) part(p Part, text string) {
	if l.Parts == nil {
		l.Parts = map[Part][]string{}
	}
	l.Parts[p] = append(l.Parts[p], text)
}

func (l *Log) called(action string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.Calls == nil {
		l.Calls = map[string]int{}
	}
	l.Calls[action]++
}

// Scout is a script's view of the store through an Agent: it remembers
// the pages it read, as a good agent does, and finds its way from / by
// the pages' links when the path told it nothing beforehand.
type Scout struct {
	A     Agent
	pages map[string]*protocol.Graph
	order []string
	fresh map[string]bool // pages read since the agent last called an action
}

// NewScout starts a script on an agent.
func NewScout(a Agent) *Scout {
	return &Scout{A: a, pages: map[string]*protocol.Graph{}, fresh: map[string]bool{}}
}

// Read reads a page again when a call may have changed it since the
// agent last read it: what a call changed is read anew, and a page just
// read (finding the way to it, say) is not read twice.
func (s *Scout) Read(ctx context.Context, page string) (*protocol.Graph, error) {
	if g, ok := s.pages[page]; ok && s.fresh[page] {
		return g, nil
	}
	g, err := s.A.Read(ctx, page)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", page, err)
	}
	if _, ok := s.pages[page]; !ok {
		s.order = append(s.order, page)
	}
	s.pages[page] = g
	s.fresh[page] = true
	return g, nil
}

// Seen reads a page unless it was read already.
func (s *Scout) Seen(ctx context.Context, page string) (*protocol.Graph, error) {
	if g, ok := s.pages[page]; ok {
		return g, nil
	}
	return s.Read(ctx, page)
}

// Call runs an action.
func (s *Scout) Call(ctx context.Context, page, action string, input any) (*protocol.Delta, error) {
	s.A.Log().called(action)
	clear(s.fresh) // the call may have changed any page
	return s.A.Call(ctx, page, action, input)
}

// PageOf finds the page where an action is: the route the path told, or
// the first page with that action among the pages read and the pages
// their links lead to, from /, nearest first. Only routes without
// parameters are found this way.
func (s *Scout) PageOf(ctx context.Context, action string) (string, error) {
	if r := s.A.Route(action); r != "" && !strings.Contains(r, "[") {
		return r, nil
	}
	return s.walk(ctx, func(g *protocol.Graph) bool { return hasAction(g, action) })
}

// PageNamed finds the page a link with this label leads to, from the
// pages read and from /.
func (s *Scout) PageNamed(ctx context.Context, label string) (string, error) {
	for _, p := range s.order {
		if to := navTo(s.pages[p], label); to != "" {
			return to, nil
		}
	}
	var found string
	_, err := s.walk(ctx, func(g *protocol.Graph) bool {
		found = navTo(g, label)
		return found != ""
	})
	return found, err
}

// walk reads pages breadth first from the pages read, the latest first
// (where the agent is), and from /, until one satisfies ok; it reads at
// most 12 new pages.
func (s *Scout) walk(ctx context.Context, ok func(*protocol.Graph) bool) (string, error) {
	queue := slices.Clone(s.order)
	slices.Reverse(queue)
	if !slices.Contains(queue, "/") {
		queue = append(queue, "/")
	}
	queued := map[string]bool{}
	for _, p := range queue {
		queued[p] = true
	}
	for reads := 0; len(queue) > 0; {
		p := queue[0]
		queue = queue[1:]
		g, read := s.pages[p]
		if !read {
			if reads++; reads > 12 {
				break
			}
			var err error
			if g, err = s.Read(ctx, p); err != nil {
				continue // a page this caller may not read
			}
		}
		if ok(g) {
			return p, nil
		}
		for _, n := range g.Nav {
			if !queued[n.To] && !strings.Contains(n.To, "?") && !strings.HasPrefix(n.To, "/products/") {
				queued[n.To] = true
				queue = append(queue, n.To)
			}
		}
	}
	return "", errors.New("not found from /")
}

func hasAction(g *protocol.Graph, action string) bool {
	for _, a := range g.Actions {
		if a.Name == action {
			return true
		}
	}
	return false
}

// ActionOf returns an action of a page's graph.
func ActionOf(g *protocol.Graph, action string) (protocol.ActionDescriptor, bool) {
	for _, a := range g.Actions {
		if a.Name == action {
			return a, true
		}
	}
	return protocol.ActionDescriptor{}, false
}

func navTo(g *protocol.Graph, label string) string {
	for _, n := range g.Nav {
		if strings.EqualFold(n.Label, label) {
			return n.To
		}
	}
	return ""
}

// Entity decodes an entity of a page's graph into v.
func Entity(g *protocol.Graph, name string, v any) error {
	e, ok := g.Entities[name]
	if !ok {
		return fmt.Errorf("the page %s shows no %s", g.Page, name)
	}
	b, err := json.Marshal(e)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}
