package conformance

// The readiness.* checks (afford check --readiness): beyond the protocol,
// what an agent-readiness scan looks for on a site. A must that fails is
// a FAIL, a should a WARN, each with its reason.

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net/http"
	"regexp"
	"strings"

	"github.com/affordances-go/affordances/protocol"
)

// Readiness returns the readiness checks, in the order they run.
func Readiness() []Check {
	return []Check{
		{"readiness.index", "the site index is served, so an agent can plan without opening pages", Must, checkReadyIndex},
		{"readiness.link", "the HTML of pages with a graph announces it (Link header and link element)", Must, checkReadyLink},
		{"readiness.markdown", "a page asked for text/markdown answers Markdown, and a browser still gets HTML", Should, checkReadyMarkdown},
		{"readiness.webmcp", "pages with actions a visitor can run declare them as WebMCP tools (toolname forms or the library's script)", Should, checkReadyWebMCP},
		{"readiness.robots", "/robots.txt is served and does not shut every agent out", Should, checkReadyRobots},
		{"readiness.sitemap", "a sitemap (named by robots.txt, or /sitemap.xml) lists the site's pages", Should, checkReadySitemap},
		{"readiness.mcp", "the index lists an MCP endpoint that answers", Should, checkReadyMCP},
		{"readiness.llms-txt", "/llms.txt is Markdown with an H1 and links", Should, checkReadyLLMsTxt},
		{"readiness.ai-catalog", "/.well-known/ai-catalog.json is a valid Agentic Resource Discovery catalog", Should, checkReadyAICatalog},
		{"readiness.mcp-server-card", "the MCP server card names the index's MCP endpoint", Should, checkReadyServerCard},
	}
}

func checkReadyIndex(ctx context.Context, e *Env) Outcome {
	if e.index == nil {
		return fail("no valid site index at %s", protocol.WellKnownPath)
	}
	return pass("%d routes, extensions %s", len(e.index.Routes), strings.Join(e.index.Extensions, ", "))
}

func checkReadyLink(ctx context.Context, e *Env) Outcome {
	if o := checkLinkHeader(ctx, e); o.Status != Pass {
		return o
	}
	return checkLinkElement(ctx, e)
}

func checkReadyMarkdown(ctx context.Context, e *Env) Outcome {
	if o, ok := needPages(e); !ok {
		return o
	}
	p := e.pages[0]
	res, err := e.do(ctx, http.MethodGet, p.url, nil, "Accept", "text/markdown")
	if err != nil {
		return fail("%v", err)
	}
	if res.status != http.StatusOK || !strings.HasPrefix(res.header.Get("Content-Type"), "text/markdown") {
		return fail("%s: Accept: text/markdown got %d %s", p.url, res.status, res.header.Get("Content-Type"))
	}
	if !headerHas(res.header, "Vary", "Accept") {
		return fail("%s: the Markdown answer has no Vary: Accept", p.url)
	}
	browser, err := e.do(ctx, http.MethodGet, p.url, nil, "Accept", "text/html,application/xhtml+xml,*/*;q=0.8")
	if err != nil {
		return fail("%v", err)
	}
	if strings.HasPrefix(browser.header.Get("Content-Type"), "text/markdown") {
		return fail("%s: a browser's Accept got Markdown", p.url)
	}
	tokens := res.header.Get("X-Markdown-Tokens")
	if tokens == "" {
		tokens = fmt.Sprint(len(res.body) / 4)
	}
	return pass("%s: %d bytes of Markdown (about %s tokens)", p.url, len(res.body), tokens)
}

var toolForm = regexp.MustCompile(`(?i)<form[^>]*\stoolname=`)
var webmcpScript = regexp.MustCompile(`(?i)<script[^>]*\ssrc="[^"]*webmcp[^"]*\.js"`)

func checkReadyWebMCP(ctx context.Context, e *Env) Outcome {
	if o, ok := needPages(e); !ok {
		return o
	}
	checked := 0
	for _, p := range e.pages {
		runnable := false
		for _, a := range p.graph.Actions {
			runnable = runnable || a.Available
		}
		if !runnable {
			continue
		}
		res, err := e.do(ctx, http.MethodGet, p.url, nil, "Accept", "text/html")
		if err != nil {
			return fail("%v", err)
		}
		if res.status != http.StatusOK || !strings.HasPrefix(res.header.Get("Content-Type"), "text/html") {
			continue
		}
		checked++
		if !toolForm.Match(res.body) && !webmcpScript.Match(res.body) {
			return fail("%s has actions a visitor can run, and its HTML declares no WebMCP tool", p.url)
		}
	}
	if checked == 0 {
		return skip("no page with an available action has HTML")
	}
	return pass("%d pages declare their tools", checked)
}

// robotsTxt reads /robots.txt: its status, whether it shuts every agent
// out ("Disallow: /" for "User-agent: *"), and its Sitemap lines.
func (e *Env) robotsTxt(ctx context.Context) (status int, closed bool, sitemaps []string, err error) {
	res, err := e.do(ctx, http.MethodGet, e.abs("/robots.txt"), nil, "Accept", "text/plain")
	if err != nil {
		return 0, false, nil, err
	}
	if res.status != http.StatusOK {
		return res.status, false, nil, nil
	}
	everyone := false
	sc := bufio.NewScanner(bytes.NewReader(res.body))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = strings.TrimSpace(line[:i])
		}
		k, v, _ := strings.Cut(line, ":")
		k, v = strings.ToLower(strings.TrimSpace(k)), strings.TrimSpace(v)
		switch k {
		case "user-agent":
			everyone = v == "*"
		case "disallow":
			closed = closed || (everyone && v == "/")
		case "sitemap":
			sitemaps = append(sitemaps, v)
		}
	}
	return res.status, closed, sitemaps, nil
}

func checkReadyRobots(ctx context.Context, e *Env) Outcome {
	status, closed, _, err := e.robotsTxt(ctx)
	switch {
	case err != nil:
		return fail("%v", err)
	case status != http.StatusOK:
		return fail("/robots.txt answered %d", status)
	case closed:
		return fail("/robots.txt disallows the whole site to every user agent")
	}
	return pass("served, the site open to agents")
}

var sitemapLoc = regexp.MustCompile(`<loc>\s*([^<\s]+)\s*</loc>`)

func checkReadySitemap(ctx context.Context, e *Env) Outcome {
	_, _, sitemaps, err := e.robotsTxt(ctx)
	if err != nil {
		return fail("%v", err)
	}
	target := e.abs("/sitemap.xml")
	if len(sitemaps) > 0 {
		target = sitemaps[0]
	}
	res, err := e.do(ctx, http.MethodGet, target, nil, "Accept", "application/xml")
	if err != nil {
		return fail("%s: %v", target, err)
	}
	if res.status != http.StatusOK || !(bytes.Contains(res.body, []byte("<urlset")) || bytes.Contains(res.body, []byte("<sitemapindex"))) {
		return fail("%s answered %d without a urlset", target, res.status)
	}
	locs := sitemapLoc.FindAllSubmatch(res.body, -1)
	if len(locs) == 0 {
		return fail("%s lists no page", target)
	}
	return pass("%s lists %d URLs", target, len(locs))
}

func checkReadyMCP(ctx context.Context, e *Env) Outcome {
	if e.index == nil || e.index.MCP == "" {
		return fail("the index lists no MCP endpoint")
	}
	return checkMCPEndpoint(ctx, e)
}
