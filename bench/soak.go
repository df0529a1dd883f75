package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
)

// goTest runs one package's tests matching run, verbose, with env added,
// from dir (relative to the repository's root), and returns their output:
// the long forms of tests the suite runs short.
func goTest(ctx context.Context, dir, pkg, run, env string) ([]byte, error) {
	_, file, _, _ := runtime.Caller(0)
	cmd := exec.CommandContext(ctx, "go", "test", pkg, "-run", run, "-count=1", "-v", "-timeout", "30m")
	cmd.Dir = filepath.Join(filepath.Dir(file), "..", dir)
	cmd.Env = append(os.Environ(), env)
	return cmd.CombinedOutput()
}

// soak runs the MCP endpoint's soak (site/mcp's TestSoak) long: 10,000
// sessions opened and abandoned, 10,000 stateless 2026-07-28 clients
// (server/discover included), 10,000 of 2025-11-25, and reports the
// goroutines and heap before and after, once the sessions timed out. The
// suite runs it with 300 of each.
func soak(ctx context.Context, _ *Env, smoke bool) ([]Row, error) {
	n := "10000"
	if smoke {
		n = "50"
	}
	out, err := goTest(ctx, ".", "./site/mcp", "^TestSoak_", "AFFORDANCES_SOAK="+n)
	m := regexp.MustCompile(`soak: (\d+) abandoned sessions, (\d+) stateless 2026-07-28 clients, (\d+) 2025-11-25 clients in (\S+); goroutines (\d+) → (\d+), heap (\d+) → (\d+) KiB`).FindSubmatch(out)
	if err != nil || m == nil {
		return nil, fmt.Errorf("the soak failed: %v\n%s", err, out)
	}
	return []Row{{Name: fmt.Sprintf("soak: %s abandoned MCP sessions, %s stateless 2026-07-28 and %s 2025-11-25 clients", m[1], m[2], m[3]),
		Ours:     fmt.Sprintf("goroutines %s → %s, heap %s → %s KiB", m[5], m[6], m[7], m[8]),
		Baseline: "before the soak", Ratio: string(m[4]),
		Goal: "back to the baseline once sessions time out", Met: met(true),
		Note: "the test fails when goroutines end more than 5 above the baseline or the heap 16 MiB above it"}}, nil
}
