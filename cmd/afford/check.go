package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/affordances-go/affordances/client"
	"github.com/affordances-go/affordances/conformance"
)

const checkUsage = `afford check URL: test a server against the Affordances protocol.

Pages are found from the site index, and from the nav, the link-like
entities and the HTML links of every page (at most 25 pages, 3 links deep,
one page per route unless --page names more). A route of the index with no
page found is reported: name one of its pages with --page.

What the default run sends: GET and HEAD of pages and of the site index,
one PUT to a page (to check 405), and calls that a server refuses before
running anything even when it is broken: a call to an action that does not
exist, a body that is not JSON, and calls whose input is an array (never an
object an action takes) to actions chosen so that nothing is likely to run,
never a confirm action, read-only ones first. The token or the cookie
given goes with every request but those of the anonymous checks. The flags
below allow more.

  --page PATH              also check this page (repeatable)
  --token TOKEN            a bearer token ($AFFORD_TOKEN), for bearer and signed-in checks
  --cookie 'NAME=VALUE'    a session cookie, sent with every request (without --token)
  --cookie-jar FILE        take the cookie from afford's jar file (after afford call … signIn)
  --cacert FILE            trust this PEM certificate too (default: $AFFORD_CACERT)
  --safe-action PATH#NAME  an action that may run, for the checks that need a success
  --safe-input JSON        its input
  --confirm-action PATH#NAME  a confirm action, to check that it does not run without confirm
  --confirm-input JSON     its input
  --burst                  allow the rate-limit check, which sends up to 300 refused calls
  --readiness              also run the readiness checks: Markdown, WebMCP tools, robots.txt,
                           a sitemap, discovery and the MCP endpoint, as agent-readiness
                           scanners look for them
  --strict                 exit 1 when any rule failed, should rules too
  --json                   print the report as JSON

It prints one row per check (a should rule that failed is a WARN) and the
line "N passed, N failed, N warnings, N skipped". It exits 1 when a must
rule failed, or with --strict when any rule failed.
`

type repeated []string

func (r *repeated) String() string     { return strings.Join(*r, ",") }
func (r *repeated) Set(v string) error { *r = append(*r, v); return nil }

// checkCmd runs afford check.
func checkCmd(args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var pages repeated
	fs.Var(&pages, "page", "")
	token := fs.String("token", getenv("AFFORD_TOKEN"), "")
	cookie := fs.String("cookie", "", "")
	jarPath := fs.String("cookie-jar", "", "")
	cacert := fs.String("cacert", getenv("AFFORD_CACERT"), "")
	safe := fs.String("safe-action", "", "")
	safeInput := fs.String("safe-input", "", "")
	confirm := fs.String("confirm-action", "", "")
	confirmInput := fs.String("confirm-input", "", "")
	burst := fs.Bool("burst", false, "")
	readiness := fs.Bool("readiness", false, "")
	strict := fs.Bool("strict", false, "")
	asJSON := fs.Bool("json", false, "")
	help := fs.Bool("help", false, "")
	pos, err := parseInterleaved(fs, args)
	if *help {
		fmt.Fprint(stdout, checkUsage)
		return exitOK
	}
	if err != nil || len(pos) != 1 {
		if err == nil {
			err = fmt.Errorf("check takes one URL")
		}
		fmt.Fprintf(stderr, "afford check: %v\n\n%s", err, checkUsage)
		return exitUsage
	}
	if err := checkURL(pos[0]); err != nil {
		bu := err.(badURLError)
		fmt.Fprintf(stderr, "afford check: %s\n", bu.msg)
		for _, h := range bu.hints {
			fmt.Fprintf(stderr, "  → %s\n", h)
		}
		return exitUsage
	}
	var transport http.RoundTripper // nil: the default, the system's roots
	if *cacert != "" {
		roots, err := client.CertPool(*cacert)
		if err != nil {
			fmt.Fprintf(stderr, "afford check: --cacert: %v\n", err)
			return exitUsage
		}
		transport = trusting(roots)
	}
	if f := probe(pos[0], transport); f != nil {
		// A site that does not answer at all fails every check for the
		// same reason: say it once.
		fmt.Fprintf(stderr, "afford check: %s\n", f.Message)
		for _, h := range f.Hints {
			fmt.Fprintf(stderr, "  → %s\n", h)
		}
		return exitFailure
	}
	cfg := conformance.Config{BaseURL: pos[0], Pages: pages, Token: *token, Cookie: *cookie, Burst: *burst, Readiness: *readiness}
	if transport != nil {
		cfg.HTTPClient = &http.Client{Timeout: 10 * time.Second, Transport: transport,
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	}
	if *jarPath != "" && cfg.Cookie == "" {
		jar, err := openJar(*jarPath)
		if err != nil {
			fmt.Fprintf(stderr, "afford check: %v\n", err)
			return exitFailure
		}
		if u, err := url.Parse(pos[0]); err == nil {
			var parts []string
			for _, c := range jar.Cookies(u) {
				parts = append(parts, c.Name+"="+c.Value)
			}
			cfg.Cookie = strings.Join(parts, "; ")
		}
		if cfg.Cookie == "" {
			fmt.Fprintf(stderr, "afford check: the cookie jar %s holds no cookie of %s, so the checks that need a session are skipped\n  → sign in first: afford call --cookie-jar %s URL-OF-THE-SIGN-IN-PAGE signIn email=… password=…\n", *jarPath, pos[0], *jarPath)
		}
	}
	if cfg.Safe, err = actionFlag(*safe, *safeInput); err != nil {
		fmt.Fprintf(stderr, "afford check: --safe-action: %v\n", err)
		return exitUsage
	}
	if cfg.Confirm, err = actionFlag(*confirm, *confirmInput); err != nil {
		fmt.Fprintf(stderr, "afford check: --confirm-action: %v\n", err)
		return exitUsage
	}
	rep, err := conformance.Run(context.Background(), cfg)
	if err != nil {
		fmt.Fprintf(stderr, "afford check: %v\n", err)
		return exitFailure
	}
	if *asJSON {
		b, _ := json.MarshalIndent(rep, "", "  ")
		fmt.Fprintf(stdout, "%s\n", b)
	} else {
		printReport(stdout, rep, outputWidth(stdout, getenv))
	}
	if rep.MustFailed() || (*strict && rep.AnyFailed()) {
		return exitFailure
	}
	return exitOK
}

// actionFlag reads PATH#NAME and an optional JSON input.
func actionFlag(spec, input string) (*conformance.Action, error) {
	if spec == "" {
		return nil, nil
	}
	page, name, ok := strings.Cut(spec, "#")
	if !ok || page == "" || name == "" {
		return nil, fmt.Errorf("%q is not PATH#NAME", spec)
	}
	a := &conformance.Action{Page: page, Name: name}
	if input != "" {
		if !json.Valid([]byte(input)) {
			return nil, fmt.Errorf("the input %q is not JSON", input)
		}
		a.Input = json.RawMessage(input)
	}
	return a, nil
}

func printReport(w io.Writer, rep *conformance.Report, width int) {
	fmt.Fprintf(w, "%s: %d pages checked\n\n", rep.BaseURL, len(rep.Pages))
	idw := 0
	for _, r := range rep.Results {
		idw = max(idw, len(r.ID))
	}
	// One line per check: its result, level and id, then the rule and
	// what was found, wrapped to the width under the rule's column.
	indent := 5 + 1 + 6 + 1 + idw + 2
	for _, r := range rep.Results {
		result := strings.ToUpper(string(r.Status))
		if r.Status == conformance.Fail && r.Level == conformance.Should {
			result = "WARN"
		}
		text := r.Rule
		if r.Detail != "" {
			text += " (" + r.Detail + ")"
		}
		lines := wrap(text, max(width-indent, 30))
		fmt.Fprintf(w, "%-5s %-6s %-*s  %s\n", result, r.Level, idw, r.ID, lines[0])
		for _, l := range lines[1:] {
			fmt.Fprintf(w, "%*s%s\n", indent, "", l)
		}
	}
	fmt.Fprintf(w, "\n%s\n", rep.Summary())
}

// outputWidth is the width to print for: $COLUMNS, else the terminal's,
// else 100.
func outputWidth(w io.Writer, getenv func(string) string) int {
	if n, err := strconv.Atoi(getenv("COLUMNS")); err == nil && n >= 40 {
		return n
	}
	if sw, ok := w.(safeWriter); ok {
		w = sw.w
	}
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		if n, _, err := term.GetSize(int(f.Fd())); err == nil && n >= 40 {
			return n
		}
	}
	return 100
}

// wrap breaks text into lines of at most width bytes at spaces (a word
// longer than the width has a line of its own).
func wrap(text string, width int) []string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(text) {
		switch {
		case line == "":
			line = word
		case len(line)+1+len(word) <= width:
			line += " " + word
		default:
			lines = append(lines, line)
			line = word
		}
	}
	return append(lines, line)
}

// trusting is the default transport, trusting roots for HTTPS.
func trusting(roots *x509.CertPool) http.RoundTripper {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.TLSClientConfig = &tls.Config{RootCAs: roots}
	return t
}

// probe sends one GET to the site and describes a failure to get any
// answer (refused, unknown host, timeout), or returns nil.
func probe(base string, transport http.RoundTripper) *failure {
	c := &http.Client{Timeout: 10 * time.Second, Transport: transport,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := c.Get(base)
	if err != nil {
		if f := explainNetwork(err, base); f != nil {
			return f
		}
		return &failure{Message: "could not reach " + siteOf(base)}
	}
	res.Body.Close()
	return nil
}
