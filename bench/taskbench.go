package main

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/affordances-go/affordances/bench/tasks"
)

// tasksSVG is where -tasks-svg writes the plot of the task benchmark.
var tasksSVG string

// taskPaths is -paths: the names of the paths the task benchmark runs,
// comma-separated; "" runs them all.
var taskPaths string

// taskOutcome is one task on one path, with its tokens counted.
type taskOutcome struct {
	tasks.Result
	read, written int
	hostList      int // of read: the browser host's tool list as it lists it to the agent, on the browser paths
	hostFull      int // Playwright MCP's whole tool list, which a host without a tool filter lists instead
	parts         map[tasks.Part]int
}

// taskBench runs every task of bench/tasks on every path (the graph,
// the graph after the site index, our /mcp, Playwright MCP's snapshots,
// and Playwright MCP's WebMCP tools) in a fresh store, checks each outcome in the database, and counts what the agent
// read and wrote with the o200k tokenizer. It prints a table per task and
// returns the medians per path. The agents are scripts, not models: the
// figures are the floor a model would pay on each path, not success
// rates. A smoke run does each task once on the graph path, success
// checked, and counts nothing.
func taskBench(ctx context.Context, _ *Env, smoke bool) ([]Row, error) {
	browser := map[string]bool{}
	for _, p := range tasks.BrowserPaths() {
		browser[p.Name] = true
	}
	paths, err := choosePaths(append(tasks.Paths(), tasks.BrowserPaths()...), taskPaths)
	if err != nil {
		return nil, err
	}
	if smoke {
		paths = paths[:1]
	}
	paths, left, err := runnable(paths)
	if err != nil {
		return nil, err
	}
	var outs []taskOutcome
	texts := map[string]string{}
	failed := 0
	for _, p := range paths {
		for _, t := range tasks.All() {
			r := tasks.Run(ctx, t, p)
			_, impossible := tasks.Impossible[p.Name+"/"+t.ID]
			if !r.OK && !impossible {
				fmt.Fprintf(os.Stderr, "bench: task %s on %s failed: %v\n", t.ID, p.Name, r.Err)
				failed++
			}
			outs = append(outs, taskOutcome{Result: r})
			if r.Log != nil {
				key := p.Name + "/" + t.ID
				texts[key+"/read"] = strings.Join(r.Log.Read, "\n")
				texts[key+"/written"] = strings.Join(r.Log.Written, "\n")
				for part, ts := range r.Log.Parts {
					texts[key+"/part/"+string(part)] = strings.Join(ts, "\n")
				}
				if browser[p.Name] && len(r.Log.Read) > 0 {
					texts[key+"/hostlist"] = r.Log.Read[0] // the agent reads the host's tool list first
					texts[key+"/hostfull"] = r.Log.HostList
				}
			}
		}
	}
	if failed > 0 {
		return nil, fmt.Errorf("%d tasks failed their check", failed)
	}
	if smoke {
		return []Row{{Name: fmt.Sprintf("tasks: %d on the graph path, each checked in the database", len(outs)), Ours: "all succeeded", Met: "(smoke)"}}, nil
	}
	n, err := countTokens(ctx, tasks.TokensDir(), texts)
	if err != nil {
		return nil, err
	}
	for i := range outs {
		key := outs[i].Path + "/" + outs[i].Task
		outs[i].read, outs[i].written, outs[i].hostList, outs[i].hostFull = n[key+"/read"], n[key+"/written"], n[key+"/hostlist"], n[key+"/hostfull"]
		outs[i].parts = map[tasks.Part]int{}
		for _, part := range tasks.AllParts {
			outs[i].parts[part] = n[key+"/part/"+string(part)]
		}
	}
	printTaskTable(outs, paths)
	printTaskParts(outs, paths)
	if tasksSVG != "" {
		if err := os.WriteFile(tasksSVG, []byte(taskPlot(outs, paths)), 0o644); err != nil {
			return nil, err
		}
	}
	return append(taskRows(outs, paths), left...), nil
}

// choosePaths keeps, in their order, the paths named in names (-paths,
// comma-separated), so that one path can be measured again in seconds
// without starting a browser; "" keeps them all. A name that is no path
// is an error that lists the names there are.
func choosePaths(paths []tasks.Path, names string) ([]tasks.Path, error) {
	if names == "" {
		return paths, nil
	}
	var all []string
	for _, p := range paths {
		all = append(all, p.Name)
	}
	want := strings.Split(names, ",")
	for _, n := range want {
		if !slices.Contains(all, n) {
			return nil, fmt.Errorf("-paths: no path is called %q; the paths are %s", n, strings.Join(all, ", "))
		}
	}
	var out []tasks.Path
	for _, p := range paths {
		if slices.Contains(want, p.Name) {
			out = append(out, p)
		}
	}
	return out, nil
}

// runnable are the paths this machine can run, and a row for each it
// cannot (a Chromium whose WebMCP an agent's host cannot list), which
// says why: such a path is not measured, rather than failed.
func runnable(paths []tasks.Path) (run []tasks.Path, left []Row, err error) {
	for _, p := range paths {
		if p.Ready != nil {
			err := p.Ready()
			if errors.Is(err, tasks.ErrNoAgentWebMCP) {
				left = append(left, Row{Name: "tasks on " + p.Name, Ours: "not measured", Met: "–", Note: err.Error()})
				continue
			}
			if err != nil {
				return nil, nil, fmt.Errorf("the %s path: %w", p.Name, err)
			}
		}
		run = append(run, p)
	}
	return run, left, nil
}

// printTaskTable prints, per task, each path's tokens read + written,
// exchanges and wall time, and whether the check passed.
func printTaskTable(outs []taskOutcome, paths []tasks.Path) {
	tw := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', 0)
	head := "TASK\tKIND"
	for _, p := range paths {
		head += "\t" + strings.ToUpper(p.Name) + " (read+written, calls, ms)"
	}
	fmt.Fprintln(tw, head)
	kinds := map[string]tasks.Kind{}
	for _, t := range tasks.All() {
		kinds[t.ID] = t.Kind
	}
	for _, t := range tasks.All() {
		line := t.ID + "\t" + string(kinds[t.ID])
		for _, p := range paths {
			o := find(outs, t.ID, p.Name)
			mark := ""
			if !o.OK {
				mark = " FAILED"
			}
			line += fmt.Sprintf("\t%d+%d, %d, %d%s", o.read, o.written, exchanges(o), o.Wall.Milliseconds(), mark)
		}
		fmt.Fprintln(tw, line)
	}
	tw.Flush()
	fmt.Println()
}

// printTaskParts prints, per path, where its tokens went: the median per
// task of the whole against the snapshot path's, and for each part (tool
// lists and the index, page reads, calls, their answers) its mean per
// task and its share of all the path's tokens. Means, not medians: the
// median task is a question, which makes no call, and the parts' means
// add up to the whole's.
func printTaskParts(outs []taskOutcome, paths []tasks.Path) {
	var snapshot []int
	for _, o := range outs {
		if o.Path == "snapshot" {
			snapshot = append(snapshot, o.read+o.written)
		}
	}
	tw := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', 0)
	head := "PATH\tMEDIAN\tOF SNAPSHOT"
	for _, part := range tasks.AllParts {
		head += "\t" + strings.ToUpper(string(part)) + " (mean, share)"
	}
	fmt.Fprintln(tw, head)
	for _, p := range paths {
		var all []int
		total := 0
		sums := map[tasks.Part]int{}
		for _, o := range outs {
			if o.Path != p.Name {
				continue
			}
			all = append(all, o.read+o.written)
			total += o.read + o.written
			for _, part := range tasks.AllParts {
				sums[part] += o.parts[part]
			}
		}
		line := fmt.Sprintf("%s\t%d\t%s", p.Name, medianOf(all), ratio(float64(medianOf(all)), float64(medianOf(snapshot))))
		for _, part := range tasks.AllParts {
			line += fmt.Sprintf("\t%d, %d%%", sums[part]/max(len(all), 1), 100*sums[part]/max(total, 1))
		}
		fmt.Fprintln(tw, line)
	}
	tw.Flush()
	fmt.Println()
}

func find(outs []taskOutcome, task, path string) taskOutcome {
	for _, o := range outs {
		if o.Task == task && o.Path == path {
			return o
		}
	}
	return taskOutcome{}
}

func exchanges(o taskOutcome) int {
	if o.Log == nil {
		return 0
	}
	return o.Log.Exchanges
}

// taskRows are the medians per path, and its three most expensive tasks.
func taskRows(outs []taskOutcome, paths []tasks.Path) []Row {
	var rows []Row
	for _, p := range paths {
		var tok, calls []int
		var wall []time.Duration
		var mine []taskOutcome
		ok := 0
		for _, o := range outs {
			if o.Path != p.Name {
				continue
			}
			mine = append(mine, o)
			if o.OK {
				ok++
			}
			tok = append(tok, o.read+o.written)
			calls = append(calls, exchanges(o))
			wall = append(wall, o.Wall)
		}
		slices.SortFunc(mine, func(a, b taskOutcome) int { return (b.read + b.written) - (a.read + a.written) })
		var top []string
		for _, o := range mine[:min(3, len(mine))] {
			top = append(top, fmt.Sprintf("%s %d", o.Task, o.read+o.written))
		}
		rows = append(rows, Row{Name: fmt.Sprintf("tasks on %s: median per task (%d of %d succeeded)", p.Name, ok, len(mine)),
			Ours: fmt.Sprintf("%d tokens, %d calls, %dms", medianOf(tok), medianOf(calls), medianOf(wall).Milliseconds()),
			Note: "most expensive: " + strings.Join(top, ", ")})
	}
	confirms := 0
	for _, o := range outs {
		confirms += o.ScriptConfirms
	}
	rows = append(rows, Row{Name: "tasks: confirm actions run by an agent's call in the person's browser session (a page's tool)",
		Ours: fmt.Sprintf("%d", confirms), Goal: "0", Met: met(confirms == 0),
		Note: "counted from the store's audit records: a tool only asks; the person's press of the page's button confirms"})
	return append(rows, webmcpRow(outs)...)
}

// webmcpRow compares the WebMCP path with the snapshot path, medians per
// task, against issue 39's goal. Each path's host lists the browser tools
// its agent calls (a tool filter, as hosts offer); the note gives the
// ratio again with Playwright MCP's whole tool list, which a host without
// a filter lists on both paths, and without any host list.
func webmcpRow(outs []taskOutcome) []Row {
	var w, s, wFull, sFull, wNone, sNone []int
	for _, o := range outs {
		all := o.read + o.written
		switch o.Path {
		case "webmcp":
			w, wFull, wNone = append(w, all), append(wFull, all-o.hostList+o.hostFull), append(wNone, all-o.hostList)
		case "snapshot":
			s, sFull, sNone = append(s, all), append(sFull, all-o.hostList+o.hostFull), append(sNone, all-o.hostList)
		}
	}
	if len(w) == 0 || len(s) == 0 {
		return nil
	}
	mw, ms := medianOf(w), medianOf(s)
	pair := func(a, b []int) string {
		ma, mb := medianOf(a), medianOf(b)
		return fmt.Sprintf("%d against %d, %s", ma, mb, ratio(float64(ma), float64(mb)))
	}
	return []Row{{Name: "tasks: webmcp against snapshot, medians per task",
		Ours: fmt.Sprintf("%d tokens", mw), Baseline: fmt.Sprintf("%d tokens", ms),
		Ratio: ratio(float64(mw), float64(ms)), Goal: "≤ 0.5×", Met: met(2*mw <= ms),
		Note: "each host lists the browser tools its agent calls; with Playwright MCP's whole tool list on both paths: " + pair(wFull, sFull) +
			"; without any host list: " + pair(wNone, sNone)}}
}

func medianOf[T int | time.Duration](xs []T) T {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

// taskPlot draws tokens per task per path as horizontal bars, one group
// per task, on a log scale: a hand-written SVG, so the plot needs no
// dependency.
func taskPlot(outs []taskOutcome, paths []tasks.Path) string {
	colours := []string{"#1f6f8b", "#99c24d", "#e07a5f", "#6d597a", "#f2cc8f"}
	const left, barH, gap, width = 150, 6, 8, 560
	all := tasks.All()
	height := 40 + len(all)*(len(paths)*barH+gap) + 40
	maxTok := 1
	for _, o := range outs {
		maxTok = max(maxTok, o.read+o.written)
	}
	scale := func(v int) float64 { // log10 from 100 tokens to the largest
		if v < 100 {
			v = 100
		}
		return float64(width) * (log10(float64(v)) - 2) / (log10(float64(maxTok)) - 2)
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="10">`+"\n", left+width+20, height)
	fmt.Fprintf(&b, `<text x="%d" y="16" font-size="12">o200k tokens read and written per task, per path (log scale; scripted agents: the floor a model pays)</text>`+"\n", 4)
	for i, p := range paths {
		fmt.Fprintf(&b, `<rect x="%d" y="24" width="10" height="8" fill="%s"/><text x="%d" y="32">%s</text>`+"\n", left+i*130, colours[i%len(colours)], left+i*130+14, p.Name)
	}
	y := 44
	for _, t := range all {
		fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="end">%s</text>`+"\n", left-6, y+len(paths)*barH/2+3, t.ID)
		for i, p := range paths {
			o := find(outs, t.ID, p.Name)
			w := scale(o.read + o.written)
			fill := colours[i%len(colours)]
			if !o.OK {
				fill = "#cccccc" // failed or impossible on this path
			}
			fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%.1f" height="%d" fill="%s"><title>%s on %s: %d tokens</title></rect>`+"\n", left, y, w, barH-1, fill, t.ID, p.Name, o.read+o.written)
			y += barH
		}
		y += gap
	}
	for _, tick := range []int{100, 1000, 10000, 100000} {
		if tick > maxTok {
			break
		}
		x := float64(left) + scale(tick)
		fmt.Fprintf(&b, `<line x1="%.1f" y1="40" x2="%.1f" y2="%d" stroke="#999" stroke-dasharray="2,3"/><text x="%.1f" y="%d" text-anchor="middle">%d</text>`+"\n", x, x, y, x, y+12, tick)
	}
	b.WriteString("</svg>\n")
	return b.String()
}

func log10(x float64) float64 { return math.Log10(x) }

// modelBench runs the task set with a real model (bench/tasks.RunModel)
// on every path, when AFFORD_MODEL_URL (with AFFORD_MODEL and
// AFFORD_MODEL_KEY) names an OpenAI-compatible endpoint; otherwise it
// says it is off. It reports success rates and the endpoint's token
// usage: what a model really pays, where the task group reports the
// floor.
func modelBench(ctx context.Context, _ *Env, _ bool) ([]Row, error) {
	m, ok := tasks.ModelFromEnv()
	if !ok {
		return []Row{{Name: "tasks with a model", Ours: "off", Note: "set AFFORD_MODEL_URL, AFFORD_MODEL and AFFORD_MODEL_KEY to an OpenAI-compatible endpoint"}}, nil
	}
	paths, rows, err := runnable(append(tasks.Paths(), tasks.BrowserPaths()...))
	if err != nil {
		return nil, err
	}
	for _, p := range paths {
		ok, n := 0, 0
		var prompt, completion []int
		for _, t := range tasks.All() {
			r := tasks.RunModel(ctx, m, t, p)
			n++
			if r.OK {
				ok++
			} else {
				fmt.Fprintf(os.Stderr, "bench: %s on %s with %s: %v\n", t.ID, p.Name, m.Name, r.Err)
			}
			prompt = append(prompt, r.PromptTokens)
			completion = append(completion, r.CompletionTokens)
		}
		rows = append(rows, Row{Name: fmt.Sprintf("tasks with %s on %s", m.Name, p.Name),
			Ours: fmt.Sprintf("%d of %d succeeded", ok, n),
			Note: fmt.Sprintf("median per task: %d prompt + %d completion tokens (the endpoint's usage)", medianOf(prompt), medianOf(completion))})
	}
	return rows, nil
}
