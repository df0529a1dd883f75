package tasks

import (
	"context"
	"fmt"
	"time"
)

// Path is a way an agent reaches the store.
type Path struct {
	Name string
	// New starts an agent on the path in a world.
	New func(ctx context.Context, w *World) (Agent, error)
	// Ready, when set, says whether the path can run on this machine: nil
	// if it can, an error that says why not (see ErrNoAgentWebMCP).
	Ready func() error
}

// Paths are the paths this package drives in Go: the Affordances graph
// and calls, with and without the site index first, and the store's own
// MCP endpoint. (Playwright MCP's paths run in Node: see the bench.)
func Paths() []Path {
	return []Path{
		{"graph", func(ctx context.Context, w *World) (Agent, error) { return NewGraphAgent(ctx, w, false) }, nil},
		{"graph+index", func(ctx context.Context, w *World) (Agent, error) { return NewGraphAgent(ctx, w, true) }, nil},
		{"mcp", func(ctx context.Context, w *World) (Agent, error) { return NewMCPAgent(ctx, w) }, nil},
		{"mcp-lean", func(ctx context.Context, w *World) (Agent, error) { return NewLeanMCPAgent(ctx, w) }, nil},
	}
}

// Result is one task done on one path.
type Result struct {
	Task, Path string
	// OK is the check's verdict; Err says why not.
	OK  bool
	Err error
	// Answer is the agent's last words.
	Answer string
	// Log is what the agent sent and read; Wall how long it took.
	Log  *Log
	Wall time.Duration
	// ScriptConfirms counts the confirm actions that ran on the agent's
	// own call in the person's cookie session (a page's tool): 0 is the
	// rule, since a tool only asks and the person confirms on the page.
	ScriptConfirms int
}

// Run does a task on a path in a fresh world with the task's script, and
// checks the outcome.
func Run(ctx context.Context, t Task, p Path) Result {
	return attempt(ctx, t, p, func(ctx context.Context, _ *World, a Agent) (string, error) {
		return t.Script(ctx, NewScout(a))
	})
}

// attempt is one attempt at a task on a path: a fresh world in the task's
// starting state, an agent on the path, do (a script or a model), and the
// task's check of the outcome.
func attempt(ctx context.Context, t Task, p Path, do func(context.Context, *World, Agent) (string, error)) Result {
	r := Result{Task: t.ID, Path: p.Name}
	w, err := NewWorld(ctx)
	if err != nil {
		r.Err = fmt.Errorf("starting the store: %w", err)
		return r
	}
	defer w.Close()
	if t.Setup != nil {
		if err := t.Setup(ctx, w); err != nil {
			r.Err = err
			return r
		}
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	start := time.Now()
	a, err := p.New(ctx, w)
	if err != nil {
		r.Err = fmt.Errorf("starting the agent: %w", err)
		return r
	}
	if c, ok := a.(interface{ Close() }); ok {
		defer c.Close()
	}
	r.Answer, err = do(ctx, w, a)
	r.Wall = time.Since(start)
	r.Log = a.Log()
	r.ScriptConfirms = int(w.ScriptConfirms.Load())
	if err != nil {
		r.Err = fmt.Errorf("the agent: %w", err)
		return r
	}
	if err := t.Check(ctx, w, r.Answer, r.Log); err != nil {
		r.Err = err
		return r
	}
	r.OK = true
	return r
}

// Impossible lists the tasks a path cannot do by the store's design,
// with why: the report counts them as failures, and the tests check that
// they fail for that reason and no other.
var Impossible = map[string]string{
	// Making and revoking tokens are people-only: every agent door refuses
	// them, whatever the agent holds (the person's cookie included). An
	// MCP connection holds no browser session to sign in with, besides.
	// The browser paths act as the person (they click the page), which
	// only presence, a passkey, tells apart.
	"graph/create-token":       "only a person",
	"graph/revoke-token":       "only a person",
	"graph+index/create-token": "only a person",
	"graph+index/revoke-token": "only a person",
	"mcp/create-token":         "cannot hold",
	"mcp/revoke-token":         "cannot hold",
	"mcp-lean/create-token":    "cannot hold",
	"mcp-lean/revoke-token":    "cannot hold",
}

// BrowserPaths are the paths through Playwright MCP and Chromium: the
// baseline, reading snapshots and acting with the page's controls. They
// need Node, bench/tokens' packages and Chromium.
func BrowserPaths() []Path {
	return []Path{
		{"snapshot", func(ctx context.Context, w *World) (Agent, error) { return NewSnapshotAgent(ctx, w, false) }, nil},
		{"webmcp", func(ctx context.Context, w *World) (Agent, error) { return NewSnapshotAgent(ctx, w, true) }, AgentWebMCP},
	}
}
