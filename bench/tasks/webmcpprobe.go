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
// offers an agent's host no way to list a page's tools: neither getTools
// on the page's model context (Chromium 156) nor the testing API before
// it (navigator.modelContextTesting, Chromium 148, which the host reads
// through AgentSideScript). The path cannot be measured on such a
// browser, whatever the site does.
var ErrNoAgentWebMCP = errors.New("this Chromium offers an agent's host no WebMCP: neither getTools nor navigator.modelContextTesting")

// WebMCPFeatures are the Chromium features the WebMCP path turns on: the
// page's side, and the testing API that is the agent's side where the
// browser has no getTools yet.
const WebMCPFeatures = "--enable-features=WebMCP,WebMCPTesting"

// AgentSideScript is bench/tokens/webmcp-agent-side.js, which Playwright
// MCP runs in every page (--init-script): on a Chromium with only the
// testing API, it gives the page's model context the getTools and
// executeTool Playwright MCP reads; elsewhere it does nothing.
func AgentSideScript() string { return filepath.Join(TokensDir(), "webmcp-agent-side.js") }

var agentWebMCP = sync.OnceValue(probeAgentWebMCP)

// AgentWebMCP reports, once per process, whether this machine's Chromium
// with WebMCPFeatures on offers an agent's side Playwright MCP can read:
// getTools on the page's model context, or the testing API that
// AgentSideScript turns into it. It
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
document.title = mc && (typeof mc.getTools === "function" || navigator.modelContextTesting) ? "listable" : "unlisted";
</script>`), 0o600); err != nil {
		return err
	}
	out, err := exec.CommandContext(ctx, chromium(), "--headless", "--no-sandbox", "--disable-gpu",
		"--disable-background-networking", "--disable-component-update", "--no-first-run",
		"--user-data-dir="+filepath.Join(dir, "profile"), WebMCPFeatures, "--dump-dom", "file://"+page).Output()
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
