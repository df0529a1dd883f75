package main

import (
	"errors"
	"fmt"
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
