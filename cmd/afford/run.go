package main

import (
	"context"
	"crypto/x509"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/affordances-go/affordances/botauth"
	"github.com/affordances-go/affordances/client"
	"github.com/affordances-go/affordances/protocol"
)

// Exit codes, one per way a command can end.
const (
	exitOK           = 0
	exitFailure      = 1 // network, a document that is not the protocol's, an unsupported version
	exitUsage        = 2
	exitNotFound     = 3
	exitUnauthorized = 4
	exitRateLimited  = 5
	exitInvalidInput = 6
	exitUnavailable  = 7
	exitNotConfirmed = 8 // confirm_required and not approved; nothing ran
	exitInternal     = 9
)

var exitForCode = map[protocol.ErrorCode]int{
	protocol.CodeNotFound:        exitNotFound,
	protocol.CodeUnauthorized:    exitUnauthorized,
	protocol.CodeRateLimited:     exitRateLimited,
	protocol.CodeInvalidInput:    exitInvalidInput,
	protocol.CodeUnavailable:     exitUnavailable,
	protocol.CodeConfirmRequired: exitNotConfirmed,
	protocol.CodeInternal:        exitInternal,
}

const usage = `afford reads and operates Affordances sites.

Usage:
  afford index URL                   the site's index: its pages and actions
  afford get URL                     a page: its text, every entity, actions, nav (--full: long lists too)
  afford call URL ACTION [INPUT]     run an action on the page at URL
  afford check URL                   test a server against the protocol (afford check --help)
  afford mcp URL                     serve the site at URL to an MCP host, over stdio
  afford keys new|show|directory|serve FILE
                                     the key afford signs its requests with (afford keys --help)

INPUT is a JSON object, or key=value pairs converted by the action's input
schema (numbers, booleans, comma-separated lists); key:=JSON sets a raw JSON
value.

Flags (anywhere on the line):
  --token TOKEN        bearer token (default: $AFFORD_TOKEN)
  --key FILE           sign every request with this key, Web Bot Auth (default: $AFFORD_KEY)
  --agent URL          the origin of the key's directory, named in the signature (default: $AFFORD_AGENT)
  --cookie-jar FILE    keep cookies in FILE, so that commands share a session
                       (its format: docs/agents.md)
  --cookie 'NAME=VALUE'
                       send this cookie to the site (a session copied from a
                       browser); with --cookie-jar it is kept there too
  --cacert FILE        trust this PEM certificate too, for a site on a development
                       certificate (default: $AFFORD_CACERT; SSL_CERT_FILE works
                       as for any Go program)
  --json               print the document instead of a summary; a failure prints
                       {"ok": false, "error": {"code", "message", "issues", "hints"}}
  --full               afford get: show every item of long lists
  --yes                approve confirm actions without asking (needed without a terminal)
  --follow             after a call that redirects, show the page it leads to
  --wait DURATION      for an action the person approves on the site: how long to
                       wait for their decision (default 10m); past it, or with 0,
                       print the approval URL and exit 8 (approval_pending)
  --no-wait            the same as --wait 0
  --approval URL       complete a call the person approved at that URL
  --retries N          send a call again up to N times, with its one Idempotency-Key:
                       after a 429, a 409 whose first try still runs, or a 503 of a
                       site briefly without its data or busy (waiting as the server
                       asks), and when its answer was lost (a cut connection, a
                       proxy's 502, 503 or 504)
  --timeout DURATION   per request (default 30s)
  --user-agent UA      the User-Agent to send

A confirm action is first called without confirmation. On a terminal,
afford shows the server's summary and asks y/N; without one it refuses
unless --yes is given. It never confirms on its own.

Some sites take the approval themselves (the action's descriptor says
approval: true): afford prints the approval page's URL, for the person to
open in a browser signed in on the site, waits for their decision (Ctrl-C
stops waiting), and completes the call once they approved. --yes does not
apply; --no-wait prints the URL and exits 8 at once, and a later
afford call … --approval URL completes the call once they approved.

afford mcp makes every action of the site's index a tool (with the
argument "page" on routes with parameters), plus readPage and siteIndex.
A confirm action is approved by the person through the host's
elicitation; a host that cannot ask gets the summary and nothing runs
(--yes does not apply). Add it to a host as the command
"afford mcp URL", with AFFORD_TOKEN in its environment (afford mcp --help
shows a host's configuration to paste).

Exit codes:
  0  success
  1  failure: network, not an Affordances document, unsupported protocol version
  2  usage
  3  not_found         4  unauthorized      5  rate_limited
  6  invalid_input     7  unavailable       8  confirm_required, not approved (nothing ran)
  9  internal (the server failed)

Examples:
  afford index http://127.0.0.1:8080
  afford get http://127.0.0.1:8080/products/heavyweight-tee
  afford call http://127.0.0.1:8080/products/heavyweight-tee addToCart sku=TEE-BLK-M qty=1
  afford call http://127.0.0.1:8080/checkout placeOrder
  afford call --cookie-jar jar.json http://127.0.0.1:8080/login signIn email=demo@example.com password=demo
`

// options are the flags of every command.
type options struct {
	token, jar, userAgent string
	cookies               []string // --cookie NAME=VALUE, in order
	cacert                string
	key, agent            string // the signing key's file and its directory's origin
	json, yes, follow     bool
	full                  bool
	noWait                bool
	wait                  time.Duration
	approval              string
	retries               int
	timeout               time.Duration
}

// run is the whole command, with its environment passed in for tests.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	stdout, stderr = safeWriter{stdout}, safeWriter{stderr}
	if len(args) > 0 && args[0] == "check" {
		return checkCmd(args[1:], stdout, stderr, getenv)
	}
	if len(args) > 0 && args[0] == "keys" {
		return keysCmd(args[1:], stdout, stderr)
	}
	var o options
	fs := flag.NewFlagSet("afford", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&o.token, "token", getenv("AFFORD_TOKEN"), "")
	fs.StringVar(&o.jar, "cookie-jar", "", "")
	fs.Func("cookie", "", func(v string) error {
		if name, _, ok := strings.Cut(v, "="); !ok || strings.TrimSpace(name) == "" {
			return fmt.Errorf("--cookie takes NAME=VALUE, not %q", v)
		}
		o.cookies = append(o.cookies, v)
		return nil
	})
	fs.StringVar(&o.cacert, "cacert", getenv("AFFORD_CACERT"), "")
	fs.StringVar(&o.key, "key", getenv("AFFORD_KEY"), "")
	fs.StringVar(&o.agent, "agent", getenv("AFFORD_AGENT"), "")
	fs.StringVar(&o.userAgent, "user-agent", "afford/0", "")
	fs.BoolVar(&o.json, "json", false, "")
	fs.BoolVar(&o.yes, "yes", false, "")
	fs.BoolVar(&o.follow, "follow", false, "")
	fs.BoolVar(&o.full, "full", false, "")
	fs.BoolVar(&o.noWait, "no-wait", false, "")
	fs.DurationVar(&o.wait, "wait", 10*time.Minute, "")
	fs.StringVar(&o.approval, "approval", "", "")
	fs.IntVar(&o.retries, "retries", 0, "")
	fs.DurationVar(&o.timeout, "timeout", 30*time.Second, "")
	help := fs.Bool("help", false, "")
	fs.BoolVar(help, "h", false, "")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		msg := strings.TrimPrefix(err.Error(), "flag provided but not defined: ")
		if msg != err.Error() {
			msg = "there is no flag " + msg
		}
		if o.json {
			b, _ := json.MarshalIndent(failureDoc{Error: &failure{Code: localUsage, Message: msg}}, "", "  ")
			fmt.Fprintf(stdout, "%s\n", b)
		} else {
			fmt.Fprintf(stderr, "afford: %s\n  → afford --help shows the commands, flags and examples\n", msg)
		}
		return exitUsage
	}
	if (*help && len(pos) > 0 && pos[0] == "mcp") || (len(pos) > 1 && pos[0] == "help" && pos[1] == "mcp") {
		fmt.Fprint(stdout, mcpUsage)
		return exitOK
	}
	if *help || len(pos) == 0 || pos[0] == "help" {
		fmt.Fprint(stdout, usage)
		if len(pos) == 0 && !*help {
			return exitUsage
		}
		return exitOK
	}

	env := &command{o: o, stdin: stdin, stdout: stdout, stderr: stderr}
	jar, err := openJar(o.jar)
	if err != nil {
		return env.exit(context.Background(), err, where{})
	}
	env.jar = jar
	env.signer, err = signer(o.key, o.agent)
	if err != nil {
		return env.exit(context.Background(), err, where{})
	}
	var roots *x509.CertPool
	if o.cacert != "" {
		if roots, err = client.CertPool(o.cacert); err != nil {
			return env.exit(context.Background(), err, where{})
		}
	}
	if len(pos) > 1 && len(o.cookies) > 0 {
		if err := jar.add(pos[1], o.cookies); err != nil {
			return env.exit(context.Background(), err, where{})
		}
	}
	env.client = client.New(client.Options{
		RootCAs:          roots,
		Signer:           env.signer,
		HTTPClient:       &http.Client{Jar: jar, Timeout: o.timeout},
		Token:            o.token,
		UserAgent:        o.userAgent,
		Markdown:         true, // the page as its person reads it, above its entities
		Approver:         env.approve,
		OnApprovalNeeded: env.approvalNeeded,
		FollowRedirects:  o.follow,
		MaxApprovalWait:  max(o.wait, time.Nanosecond), // 0 does not wait: see approvalNeeded
		Retries:          o.retries,
	})
	// Ctrl-C stops a wait for the person's approval, and the command.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	var at where
	if len(pos) > 1 {
		at.url = pos[1]
		if err := checkURL(at.url); err != nil && pos[0] != "help" {
			return env.exit(ctx, err, at)
		}
	}
	if len(pos) > 2 && pos[0] == "call" {
		at.action = pos[2]
	}
	switch cmd, rest := pos[0], pos[1:]; cmd {
	case "index":
		err = env.index(ctx, rest)
	case "get":
		err = env.get(ctx, rest)
	case "call":
		err = env.call(ctx, rest)
	case "mcp":
		err = env.mcp(ctx, rest)
	default:
		err = usageError("unknown command " + cmd)
	}
	if serr := jar.save(); serr != nil && err == nil {
		err = serr
	}
	return env.exit(ctx, err, at)
}

// mcpUsage is afford mcp --help: what the bridge does, and a host's
// configuration ready to paste.
const mcpUsage = `afford mcp URL: serve an Affordances site to an MCP host, over stdio.

Every action of the site's index becomes a tool (with the argument "page"
on routes with parameters: the path of the page to act on), beside
readPage (a page's graph) and siteIndex (the site's index). Calls go to
the site as afford call sends them, with the token of AFFORD_TOKEN (or
--token) and the cookies of --cookie-jar.

A confirm action runs only once the person approved it: through the
host's elicitation (a form with the site's summary), or, for an action
that needs approval on the site, on the site's approval page, which the
host opens as a link; the call then waits for the decision made there.
A host that cannot ask gets the summary and nothing runs. No argument of
the model confirms anything by itself, and --yes does not apply.

A host's configuration (Claude Desktop, Cursor, VS Code and others read
this shape; put your site's address and your token):

  {
    "mcpServers": {
      "my-site": {
        "command": "afford",
        "args": ["mcp", "https://shop.example"],
        "env": { "AFFORD_TOKEN": "afk_..." }
      }
    }
  }

From a clone of this repository, "command": "go" with
"args": ["run", "./cmd/afford", "mcp", "https://shop.example"] and "cwd"
set to the clone works too. The token comes from the site (the demo store
prints one when it starts, and its account page makes more).

Flags: --token TOKEN, --cookie-jar FILE, --user-agent UA, --timeout D.
`

// command is one run of afford.
type command struct {
	o              options
	stdin          io.Reader
	stdout, stderr io.Writer
	client         *client.Client
	jar            *fileJar
	signer         *botauth.Signer // nil: requests are not signed

	refusedNoTerminal bool   // a confirm action could not be asked about
	pendingApproval   string // the approval page of an action the person approves on the site
	sent              any    // the input of the last call, for the hints of invalid_input
}

type usageError string

func (e usageError) Error() string { return string(e) }

// exit reports err, for a person on stderr or as a JSON document on
// stdout with --json, and returns the exit code for it.
func (c *command) exit(ctx context.Context, err error, at where) int {
	if err == nil {
		return exitOK
	}
	f := c.explain(ctx, err, at)
	if c.o.json {
		c.printJSON(failureDoc{OK: false, Error: f, RetryAfter: f.RetryAfter, ApprovalURL: f.ApprovalURL})
		return f.exit
	}
	fmt.Fprintf(c.stderr, "afford: %s\n", f.Message)
	for _, is := range f.Issues {
		p := is.Path
		if p == "" {
			p = "(the input)"
		}
		fmt.Fprintf(c.stderr, "  %s: %s [%s]\n", p, is.Message, is.Keyword)
	}
	for _, h := range f.Hints {
		fmt.Fprintf(c.stderr, "  → %s\n", h)
	}
	return f.exit
}

// errNoWait stops a call whose approval the person gives later.
var errNoWait = errors.New("the person approves it on the site")

// approvalNeeded shows where the person approves an action on the site,
// and lets Call wait for them unless --no-wait.
func (c *command) approvalNeeded(ctx context.Context, a client.SiteApproval) error {
	fmt.Fprintf(c.stderr, "%s needs your approval on the site:\n  %s\nOpen this page in a browser signed in on the site, and approve it:\n  %s\n", a.Action, indent(a.Summary), a.URL)
	c.pendingApproval = a.URL
	if c.o.noWait || c.o.wait <= 0 {
		return errNoWait
	}
	fmt.Fprintf(c.stderr, "Waiting for the approval, at most %s (Ctrl-C stops)…\n", c.o.wait)
	return nil
}

// approve asks the person at the terminal, or follows --yes.
func (c *command) approve(ctx context.Context, a client.Approval) (bool, error) {
	fmt.Fprintf(c.stderr, "%s asks for confirmation:\n  %s\n", a.Action, indent(a.Summary))
	if c.o.yes {
		fmt.Fprintln(c.stderr, "Confirmed by --yes.")
		return true, nil
	}
	if !isTerminal(c.stdin) {
		c.refusedNoTerminal = true
		return false, nil
	}
	fmt.Fprint(c.stderr, "Confirm? [y/N] ")
	var answer string
	fmt.Fscanln(c.stdin, &answer)
	answer = strings.ToLower(strings.TrimSpace(answer))
	return answer == "y" || answer == "yes", nil
}

// isTerminal reports whether r is a terminal a person can answer on (not
// a pipe, a file, or /dev/null).
func isTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// parseInterleaved parses flags that may come before, between or after the
// positional arguments.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		if args[0] == "--" {
			return append(pos, args[1:]...), nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}
