package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/affordances-go/affordances/bench/tasks"
	"github.com/affordances-go/affordances/examples/shop/shop"
	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site/ratelimit"
)

// dumpDir is -dump: where every text the bench counts is written, so
// that a reader sees what an agent read, not only how much.
var dumpDir string

// dumpTexts writes each text under dir, one file per name, the name's
// parts (separated by "/" or ":") as directories: dir/graph/buy-tee/read.txt
// holds what the graph path's agent read on buy-tee.
func dumpTexts(dir string, texts map[string]string) error {
	for name, text := range texts {
		rel := filepath.FromSlash(strings.ReplaceAll(name, ":", "/")) + ".txt"
		if !filepath.IsLocal(rel) {
			return fmt.Errorf("-dump: %q is not a name to write under %s", name, dir)
		}
		f := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			return fmt.Errorf("-dump: %w", err)
		}
		if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
			return fmt.Errorf("-dump: %w", err)
		}
	}
	return nil
}

// playwrightRun is what playwright.mjs reports.
type playwrightRun struct {
	Tools string            `json:"tools"`
	Pages map[string]string `json:"pages"`
	Task  []struct {
		Tool string `json:"tool"`
		Text string `json:"text"`
	} `json:"task"`
}

// tokens counts what an agent reads: graphs against HTML and against the
// snapshots Playwright MCP gives (its tool list included), and the whole
// purchase of one black M heavyweight tee both ways.
// The counts do not depend on repetition, so a smoke run measures them
// whole.
func tokens(ctx context.Context, e *Env, _ bool) ([]Row, error) {
	dir := tasks.TokensDir()
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@playwright", "mcp")); err != nil {
		return nil, fmt.Errorf("the Node packages are missing: run npm ci --prefix bench/tokens")
	}
	base, stop, err := serve(e.app)
	if err != nil {
		return nil, err
	}
	defer stop()

	texts := map[string]string{}
	pages := map[string]string{"catalog": "/", "product": productPath, "cart": "/cart"}
	for name, p := range pages {
		g, err := fetch(ctx, base+p, "GET", "", "Accept", protocol.MediaType)
		if err != nil {
			return nil, err
		}
		h, err := fetch(ctx, base+p, "GET", "", "Accept", "text/html")
		if err != nil {
			return nil, err
		}
		md, err := fetch(ctx, base+p, "GET", "", "Accept", "text/markdown")
		if err != nil {
			return nil, err
		}
		texts["graph:"+name], texts["html:"+name], texts["md:"+name] = g, h, md
	}
	var graph map[string]json.RawMessage
	json.Unmarshal([]byte(texts["graph:product"]), &graph)
	for _, part := range []string{"entities", "actions", "nav", "md"} {
		texts["part:"+part] = string(graph[part])
	}

	// The purchase with afford's requests: the product's graph (for the
	// SKU and the way to checkout), addToCart, placeOrder (confirm_required
	// with the summary to show the person), placeOrder confirmed.
	e.resetCart(ctx)
	auth := []string{"Authorization", "Bearer " + e.token, "Content-Type", protocol.MediaType, "Accept", protocol.MediaType}
	steps := []struct{ method, path, body string }{
		{"GET", productPath, ""},
		{"POST", productPath, `{"action":"addToCart","input":{"sku":"TEE-BLK-M"}}`},
		{"POST", "/checkout", `{"action":"placeOrder"}`},
		{"POST", "/checkout", `{"action":"placeOrder","confirm":true}`},
	}
	var read strings.Builder
	for i, s := range steps {
		body, err := fetch(ctx, base+s.path, s.method, s.body, auth...)
		if err != nil {
			return nil, err
		}
		read.WriteString(body + "\n")
		texts[fmt.Sprintf("afford:step%d", i)] = body + "\n"
	}
	if !strings.Contains(read.String(), `"redirect":"/orders/`) {
		return nil, fmt.Errorf("the purchase with afford did not end in an order:\n%s", read.String())
	}
	texts["task:afford"] = read.String()
	index, err := fetch(ctx, base+protocol.WellKnownPath, "GET", "")
	if err != nil {
		return nil, err
	}
	texts["index"] = index

	// The same through the store's own MCP endpoint.
	e.resetCart(ctx)
	ourTools, ourSteps, ourBoth, err := ourMCPTexts(ctx, e, base)
	if err != nil {
		return nil, fmt.Errorf("the purchase through /mcp: %w", err)
	}
	ourCalls := len(ourSteps)
	texts["ours:tools"], texts["ours:task"], texts["ours:both"] = ourTools, strings.Join(ourSteps, ""), ourBoth
	for i, t := range ourSteps {
		texts[fmt.Sprintf("ours:step%d", i)] = t
	}

	// The same through the lean tool list (readPage, siteIndex, callAction).
	e.resetCart(ctx)
	leanBase, stopLean, err := serve(shop.New(e.store, shop.Options{Logger: slog.New(slog.DiscardHandler),
		DefaultLimit: ratelimit.PerMinute(1<<40, 1<<30), NoApprovals: true, MCPLean: true}))
	if err != nil {
		return nil, err
	}
	leanTools, leanSteps, _, err := ourMCPPurchase(ctx, e, leanBase, true)
	stopLean()
	if err != nil {
		return nil, fmt.Errorf("the purchase through the lean /mcp: %w", err)
	}
	texts["lean:tools"], texts["lean:task"] = leanTools, strings.Join(leanSteps, "")

	// The same with Playwright MCP.
	e.resetCart(ctx)
	pw, err := playwright(ctx, dir, base)
	if err != nil {
		return nil, err
	}
	texts["tools"] = pw.Tools
	for name, t := range pw.Pages {
		texts["snapshot:"+name] = t
	}
	var task strings.Builder
	for _, t := range pw.Task {
		task.WriteString(t.Text + "\n")
	}
	texts["task:playwright"] = task.String()

	// The same with Playwright MCP's WebMCP tools: the tools the store's
	// pages register, a snapshot only to press the order's button.
	// On a Chromium whose WebMCP Playwright MCP cannot list, the row
	// says so instead (tasks.ErrNoAgentWebMCP).
	e.resetCart(ctx)
	noWebMCP := tasks.AgentWebMCP()
	if noWebMCP != nil && !errors.Is(noWebMCP, tasks.ErrNoAgentWebMCP) {
		return nil, noWebMCP
	}
	wm := &playwrightRun{}
	if noWebMCP == nil {
		if wm, err = playwright(ctx, dir, base, "webmcp"); err != nil {
			return nil, err
		}
	}
	var wtask strings.Builder
	for _, t := range wm.Task {
		wtask.WriteString(t.Text + "\n")
	}
	texts["task:webmcp"] = wtask.String()

	n, err := countTokens(ctx, dir, texts)
	if err != nil {
		return nil, err
	}
	var rows []Row
	for _, name := range []string{"catalog", "product", "cart"} {
		g, h, s := n["graph:"+name], n["html:"+name], n["snapshot:"+name]
		r := Row{Name: fmt.Sprintf("tokens, %s page: graph vs snapshot + tool list (HTML %d, Markdown %d)", name, h, n["md:"+name]),
			Ours: fmt.Sprintf("%d", g), Baseline: fmt.Sprintf("%d + %d", s, n["tools"]),
			Ratio: fmt.Sprintf("%.2f", float64(g)/float64(s+n["tools"]))}
		if name == "product" {
			r.Goal = "≤ 1,000 and ≤ 0.10"
			r.Met = met(g <= 1000 && float64(g) <= 0.1*float64(s+n["tools"]))
			r.Note = fmt.Sprintf("graph parts: entities %d, actions %d, md %d, nav %d; snapshot alone: %.2f",
				n["part:entities"], n["part:actions"], n["part:md"], n["part:nav"], float64(g)/float64(s))
		}
		rows = append(rows, r)
	}
	ta, tp := n["task:afford"], n["task:playwright"]+n["tools"]
	rows = append(rows, Row{Name: "task: buy one black M heavyweight tee",
		Ours:     fmt.Sprintf("%d tokens, %d requests", ta, len(steps)),
		Baseline: fmt.Sprintf("%d tokens (tool list %d), %d tool calls", tp, n["tools"], len(pw.Task)),
		Ratio:    fmt.Sprintf("%.3f", float64(ta)/float64(tp)),
		Goal:     "≤ 4 requests, ≤ 0.05",
		Met:      met(len(steps) <= 4 && float64(ta) <= 0.05*float64(tp)),
		Note: fmt.Sprintf("per request: product graph %d, addToCart %d, placeOrder asked %d, confirmed %d; reading the site index first as well: +%d tokens, +1 request",
			n["afford:step0"], n["afford:step1"], n["afford:step2"], n["afford:step3"], n["index"])})
	rows = append(rows, Row{Name: "tokens, tools/list: our /mcp vs Playwright MCP",
		Ours: fmt.Sprintf("%d", n["ours:tools"]), Baseline: fmt.Sprintf("%d", n["tools"]),
		Ratio: fmt.Sprintf("%.2f", float64(n["ours:tools"])/float64(n["tools"])),
		Goal:  "≤ 1/3", Met: met(3*n["ours:tools"] <= n["tools"]),
		Note: "every action of the store as a tool with its input schema, plus readPage and siteIndex; no output schemas"})
	tw := n["task:webmcp"] + n["tools"]
	webmcpRow := Row{Name: "task: buy one black M heavyweight tee through Playwright MCP's WebMCP tools",
		Ours:     fmt.Sprintf("%d tokens (tool list %d), %d tool calls", tw, n["tools"], len(wm.Task)),
		Baseline: fmt.Sprintf("%d tokens, %d tool calls (snapshots)", tp, len(pw.Task)),
		Ratio:    fmt.Sprintf("%.3f", float64(tw)/float64(tp)),
		Goal:     "≤ 0.25",
		Met:      met(float64(tw) <= 0.25*float64(tp)),
		Note: fmt.Sprintf("the forms' tools (signIn, addToCart, placeOrder), each sent by the person's press; without Playwright's own tool list: %d tokens, %.3f",
			n["task:webmcp"], float64(n["task:webmcp"])/float64(tp))}
	if noWebMCP != nil {
		webmcpRow.Ours, webmcpRow.Ratio, webmcpRow.Met, webmcpRow.Note = "not measured", "", "–", noWebMCP.Error()
	}
	rows = append(rows, webmcpRow)
	to := n["ours:task"] + n["ours:tools"]
	rows = append(rows, Row{Name: "task: buy one black M heavyweight tee through our /mcp",
		Ours:     fmt.Sprintf("%d tokens (tool list %d), %d tool calls", to, n["ours:tools"], ourCalls),
		Baseline: fmt.Sprintf("%d tokens, %d tool calls", tp, len(pw.Task)),
		Ratio:    fmt.Sprintf("%.3f", float64(to)/float64(tp)),
		Goal:     "≤ 0.15", Met: met(float64(to) <= 0.15*float64(tp)),
		Note: fmt.Sprintf("per tool call (arguments and the result's text, which a host hands its model): readPage %d, addToCart %d, placeOrder (approved through elicitation) %d; "+
			"a host that also hands it the structured content: %d tokens, %.3f",
			n["ours:step0"], n["ours:step1"], n["ours:step2"], n["ours:both"]+n["ours:tools"], float64(n["ours:both"]+n["ours:tools"])/float64(tp))})
	tl := n["lean:task"] + n["lean:tools"]
	rows = append(rows, Row{Name: "task: buy one black M heavyweight tee through our /mcp, lean tool list",
		Ours:     fmt.Sprintf("%d tokens (tool list %d), %d tool calls", tl, n["lean:tools"], len(leanSteps)),
		Baseline: fmt.Sprintf("%d tokens, %d tool calls", tp, len(pw.Task)),
		Ratio:    fmt.Sprintf("%.3f", float64(tl)/float64(tp)),
		Goal:     "≤ 0.15", Met: met(float64(tl) <= 0.15*float64(tp)),
		Note: fmt.Sprintf("mcp.Options.Lean: readPage, siteIndex and callAction instead of %d per-action tools (tool list %d tokens)",
			strings.Count(texts["ours:tools"], `"inputSchema"`)-2, n["ours:tools"])})
	return rows, nil
}

// playwright runs playwright.mjs against base, with its mode ("webmcp",
// or none for the snapshot path).
func playwright(ctx context.Context, dir, base string, mode ...string) (*playwrightRun, error) {
	cmd := exec.CommandContext(ctx, "node", append([]string{filepath.Join(dir, "playwright.mjs"), base}, mode...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("playwright.mjs %v: %v\n%s", mode, err, stderr.String())
	}
	var pw playwrightRun
	if err := json.Unmarshal(out, &pw); err != nil {
		return nil, fmt.Errorf("playwright.mjs %v: %v", mode, err)
	}
	return &pw, nil
}

func fetch(ctx context.Context, target, method, body string, header ...string) (string, error) {
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, target, r)
	if err != nil {
		return "", err
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	return string(b), err
}

// countTokens counts each text with the o200k tokenizer (count.mjs).
func countTokens(ctx context.Context, dir string, texts map[string]string) (map[string]int, error) {
	if dumpDir != "" {
		if err := dumpTexts(dumpDir, texts); err != nil {
			return nil, err
		}
	}
	in, _ := json.Marshal(texts)
	cmd := exec.CommandContext(ctx, "node", filepath.Join(dir, "count.mjs"))
	cmd.Stdin = bytes.NewReader(in)
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return nil, fmt.Errorf("count.mjs: %s", ee.Stderr)
		}
		return nil, err
	}
	var n map[string]int
	return n, json.Unmarshal(out, &n)
}
