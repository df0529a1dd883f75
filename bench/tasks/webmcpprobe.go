package tasks

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"
)

// ErrNoAgentWebMCP is the error of the WebMCP path on a Chromium that
// gives a page WebMCP (registerTool) but gives an agent's host no way to
// list the page's tools outside its testing API: Chromium 148 has only
// navigator.modelContextTesting for that side, and Playwright MCP lists
// tools through getTools alone, so it lists none there. The path cannot
// be measured on such a browser, whatever the site does; the store's own
// browser tests still check the page's side through the testing API.
var ErrNoAgentWebMCP = errors.New("this Chromium offers an agent's host no WebMCP getTools (Playwright MCP lists no page tool on it)")

var agentWebMCP = sync.OnceValue(probeAgentWebMCP)

// AgentWebMCP reports, once per process, whether this machine's Chromium
// with WebMCP on offers the agent's side Playwright MCP reads
// (document.modelContext or navigator.modelContext with getTools). It
// returns nil if it does, an error wrapping ErrNoAgentWebMCP with the
// browser's version if it does not, and another error if Chromium could
// not be asked.
func AgentWebMCP() error { return agentWebMCP() }

var titleTag = regexp.MustCompile(`<title>([^<]*)</title>`)

func probeAgentWebMCP() error {
	dir, err := os.MkdirTemp("", "tasks-webmcp-probe-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	page := filepath.Join(dir, "probe.html")
	if err := os.WriteFile(page, []byte(`<!doctype html><title>-</title><script>
var mc = document.modelContext || navigator.modelContext;
document.title = mc && typeof mc.getTools === "function" ? "listable" : "unlisted";
</script>`), 0o600); err != nil {
		return err
	}
	out, err := exec.CommandContext(ctx, chromium(), "--headless", "--no-sandbox", "--disable-gpu",
		"--disable-background-networking", "--disable-component-update", "--no-first-run",
		"--user-data-dir="+filepath.Join(dir, "profile"), "--enable-features=WebMCP", "--dump-dom", "file://"+page).Output()
	if err != nil {
		return fmt.Errorf("asking Chromium for WebMCP: %w", err)
	}
	m := titleTag.FindSubmatch(out)
	switch {
	case m != nil && string(m[1]) == "listable":
		return nil
	case m != nil && string(m[1]) == "unlisted":
		v, _ := exec.CommandContext(ctx, chromium(), "--version").Output()
		return fmt.Errorf("%s: %w", strings.TrimSpace(string(v)), ErrNoAgentWebMCP)
	}
	return fmt.Errorf("asking Chromium for WebMCP: no answer in %.200q", out)
}
