// Command bench measures Affordances for Go against its baselines, each in
// the same run: the library's overhead over hand-written net/http, calls
// against the official MCP Go SDK, throughput under load, and the tokens an
// agent reads compared with HTML and with Playwright MCP's snapshots.
//
//	go run ./bench              # every measurement, full counts
//	go run ./bench -smoke       # every measurement once, tiny counts (CI)
//	go run ./bench -only mcp    # one group: overhead, observability, throughput, agents, mcp, tokens, cluster, tasks, model, soak, overload
//	go run ./bench -only tasks -paths graph -dump /tmp/texts  # one path of the tasks, and what its agent read
//
// docs/benchmarks.md explains each row and records a run.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"runtime/pprof"

	"text/tabwriter"
	"time"
)

// Row is one measurement: ours against a baseline.
type Row struct {
	Name     string
	Ours     string
	Baseline string
	Ratio    string
	Goal     string
	Met      string
	Note     string
}

func main() {
	smoke := flag.Bool("smoke", false, "run every measurement once on tiny counts; assert nothing")
	only := flag.String("only", "", "run one group: overhead, observability, throughput, agents, mcp, tokens, cluster, tasks, model, soak, overload")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the run to this file")
	flag.StringVar(&tasksSVG, "tasks-svg", "", "write the task benchmark's plot (tokens per task and path) to this SVG file")
	flag.StringVar(&taskPaths, "paths", "", "run the task benchmark on these paths only, comma-separated: graph, graph+index, mcp, mcp-lean, snapshot, webmcp")
	flag.StringVar(&dumpDir, "dump", "", "write every text the token counts are made of (what each agent read and wrote) to files under this directory")
	flag.Parse()
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(1)
		}
		pprof.StartCPUProfile(f)
		defer pprof.StopCPUProfile()
	}

	ctx := context.Background()
	env, err := startEnv(ctx)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
	defer env.close()

	groups := []struct {
		name string
		run  func(context.Context, *Env, bool) ([]Row, error)
	}{
		{"overhead", overhead},
		{"observability", observability},
		{"throughput", throughput},
		{"agents", signedCall},
		{"mcp", mcpCompare},
		{"tokens", tokens},
		{"cluster", clusterThroughput},
		{"tasks", taskBench},
		{"model", modelBench},
		{"soak", soak},
		{"overload", overloadBench},
	}
	tw := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "MEASUREMENT\tOURS\tBASELINE\tRATIO\tGOAL\tMET\tNOTE")
	failed := false
	for _, g := range groups {
		if *only != "" && *only != g.name {
			continue
		}
		start := time.Now()
		rows, err := g.run(ctx, env, *smoke)
		if err != nil {
			fmt.Fprintf(os.Stderr, "bench: %s: %v\n", g.name, err)
			failed = true
			continue
		}
		for _, r := range rows {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.Name, r.Ours, r.Baseline, r.Ratio, r.Goal, r.Met, r.Note)
		}
		tw.Flush()
		fmt.Fprintf(os.Stderr, "bench: %s took %s\n", g.name, time.Since(start).Round(time.Millisecond))
	}
	tw.Flush()
	if failed {
		pprof.StopCPUProfile()
		os.Exit(1)
	}
}

// met says whether a goal was met, for the table.
func met(ok bool) string {
	if ok {
		return "yes"
	}
	return "no"
}

func ratio(ours, base float64) string { return fmt.Sprintf("%.2f×", ours/base) }

func dur(d time.Duration) string {
	switch {
	case d < time.Microsecond:
		return fmt.Sprintf("%dns", d.Nanoseconds())
	case d < time.Millisecond:
		return fmt.Sprintf("%.1fµs", float64(d.Nanoseconds())/1e3)
	}
	return fmt.Sprintf("%.2fms", float64(d.Nanoseconds())/1e6)
}

func ns(f float64) time.Duration { return time.Duration(f) }
