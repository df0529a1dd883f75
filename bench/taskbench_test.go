package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/affordances-go/affordances/bench/tasks"
)

// A path this machine's browser cannot run is left out with a row that
// says why; any other trouble getting it ready fails the benchmark.
func TestRunnable_LeavesOutWhatTheBrowserCannotRun(t *testing.T) {
	noList := fmt.Errorf("Chromium 148: %w", tasks.ErrNoAgentWebMCP)
	paths := []tasks.Path{{Name: "graph"}, {Name: "webmcp", Ready: func() error { return noList }}, {Name: "snapshot", Ready: func() error { return nil }}}
	run, left, err := runnable(paths)
	if err != nil {
		t.Fatal(err)
	}
	if len(run) != 2 || run[0].Name != "graph" || run[1].Name != "snapshot" {
		t.Errorf("ran %v", run)
	}
	if len(left) != 1 || left[0].Name != "tasks on webmcp" || left[0].Ours != "not measured" || !strings.Contains(left[0].Note, "Chromium 148") {
		t.Errorf("left out %+v", left)
	}
	broken := errors.New("chromium: exec format error")
	if _, _, err := runnable([]tasks.Path{{Name: "webmcp", Ready: func() error { return broken }}}); !errors.Is(err, broken) {
		t.Errorf("a browser that could not be asked: %v", err)
	}
}

// -paths keeps the named paths in the benchmark's order, and names the
// paths there are when asked for one that is not.
func TestChoosePaths(t *testing.T) {
	paths := []tasks.Path{{Name: "graph"}, {Name: "graph+index"}, {Name: "mcp"}, {Name: "webmcp"}}
	got, err := choosePaths(paths, "webmcp,graph")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Name != "graph" || got[1].Name != "webmcp" {
		t.Errorf("kept %v", got)
	}
	if all, err := choosePaths(paths, ""); err != nil || len(all) != len(paths) {
		t.Errorf("no -paths kept %v, %v", all, err)
	}
	if _, err := choosePaths(paths, "graph,mcp-fast"); err == nil || !strings.Contains(err.Error(), `"mcp-fast"`) || !strings.Contains(err.Error(), "graph+index") {
		t.Errorf("an unknown path: %v", err)
	}
}

// -dump writes each counted text where its name says, and refuses a name
// that would leave the directory.
func TestDumpTexts(t *testing.T) {
	dir := t.TempDir()
	texts := map[string]string{"graph/buy-tee/read": "{\"v\":\"0\"}", "afford:step0": "{}\n"}
	if err := dumpTexts(dir, texts); err != nil {
		t.Fatal(err)
	}
	for rel, want := range map[string]string{"graph/buy-tee/read.txt": "{\"v\":\"0\"}", "afford/step0.txt": "{}\n"} {
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
		if err != nil || string(b) != want {
			t.Errorf("%s: %q, %v", rel, b, err)
		}
	}
	if err := dumpTexts(dir, map[string]string{"../outside": "x"}); err == nil {
		t.Error("a name that leaves the directory was written")
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(dir), "outside.txt")); err == nil {
		t.Error("outside.txt exists beside the directory")
	}
}
