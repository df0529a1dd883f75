package tasks

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"testing"
)

// needBrowser skips without Node, Playwright MCP or Chromium, unless CI
// is set: there they must be.
func needBrowser(t *testing.T) {
	t.Helper()
	_, errNode := exec.LookPath("node")
	_, errCLI := os.Stat(PlaywrightMCP())
	_, errChromium := os.Stat(chromium())
	if errNode != nil || errCLI != nil || errChromium != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI needs node, Playwright MCP (npm ci --prefix bench/tokens) and Chromium: %v %v %v", errNode, errCLI, errChromium)
		}
		t.Skipf("no browser path here (node %v, Playwright MCP %v, Chromium %v)", errNode, errCLI, errChromium)
	}
}

// The browser paths do writes, a question, approvals and an unavailable
// task, checked in the database like the others.
func TestTasks_BrowserPaths(t *testing.T) {
	needBrowser(t)
	ctx := context.Background()
	for _, p := range BrowserPaths() {
		if p.Ready != nil {
			err := p.Ready()
			if errors.Is(err, ErrNoAgentWebMCP) && os.Getenv("CI") != "true" {
				// No site can change what the browser offers the host:
				// by hand the path is left out; CI's Chromium must
				// offer one of the agent's sides.
				t.Run(p.Name, func(t *testing.T) { t.Skipf("not measurable here: %v", err) })
				continue
			}
			if err != nil {
				t.Fatalf("the %s path: %v", p.Name, err)
			}
		}
		for _, id := range []string{"add-hoodie", "stock-of", "remove-line", "buy-jacket", "cancel-last-order", "sold-out", "order-new-address"} {
			t.Run(p.Name+"/"+id, func(t *testing.T) {
				r := Run(ctx, taskNamed(id), p)
				if !r.OK {
					t.Errorf("%v (answer %q)", r.Err, r.Answer)
					if r.Log != nil {
						for i, w := range r.Log.Written {
							t.Logf("sent %.200s", w)
							if i+1 < len(r.Log.Read) {
								t.Logf("read %.900s", r.Log.Read[i+1])
							}
						}
					}
				}
				if r.Log == nil || r.Log.Exchanges == 0 {
					t.Error("nothing logged")
				}
			})
		}
	}
}

// With a model on the snapshot path, the model gets Playwright MCP's
// tools and drives the browser: a question checked in the database.
func TestModel_TheSnapshotPath(t *testing.T) {
	needBrowser(t)
	srv := fakeModel(t, []turn{
		{"", "browser_navigate", `{"url":"{site}/products/rain-shell"}`},
		{"Rain Shell", "answer", `{"text":"Yellow and Black."}`},
	})
	m := Model{URL: srv.URL + "/v1", Key: "sk-test", Name: "fake-1"}
	r := RunModel(context.Background(), m, taskNamed("colours-of"), BrowserPaths()[0])
	if !r.OK {
		t.Fatalf("%v", r.Err)
	}
}
