// Package conformance checks a live server against the Affordances
// protocol, from the outside, over HTTP. It does not care what language
// the server is written in.
//
// Each [Check] has a stable id, the rule it checks, a level (must or
// should) and a function that runs it. [Run] finds the site's pages from
// its index and the nav of its graphs, runs every check, and returns a
// [Report]. The default run changes nothing on the server: calls it sends
// are ones a server refuses before anything runs even when it is broken
// (actions that do not exist, bodies that are not JSON, array inputs to
// actions chosen so that nothing is likely to run, never confirm actions).
// Checks that must change state, or that send a burst of requests, run
// only when the operator names the action to use or opts in.
package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// Level says how binding a rule is.
type Level string

const (
	// Must rules are required by the protocol; a failure fails the run.
	Must Level = "must"
	// Should rules are recommended; a failure is reported but does not
	// fail the run.
	Should Level = "should"
)

// Status is the outcome of one check.
type Status string

const (
	Pass Status = "pass"
	Fail Status = "fail"
	Skip Status = "skip"
)

// Check is one rule of the protocol and the way to test it.
type Check struct {
	// ID is stable across releases, such as "negotiation.any".
	ID string
	// Rule states the rule in a few words.
	Rule string
	// Level says whether the rule is a must or a should.
	Level Level
	// Run tests the rule against the server.
	Run func(ctx context.Context, e *Env) Outcome
}

// Outcome is what a check found.
type Outcome struct {
	Status Status
	Detail string
}

func pass(format string, args ...any) Outcome {
	return Outcome{Pass, fmt.Sprintf(format, args...)}
}
func fail(format string, args ...any) Outcome {
	return Outcome{Fail, fmt.Sprintf(format, args...)}
}
func skip(format string, args ...any) Outcome {
	return Outcome{Skip, fmt.Sprintf(format, args...)}
}

// Action names an action of the server and the input to call it with.
type Action struct {
	// Page is the URL (or path) of a page the action is on.
	Page string `json:"page"`
	// Name is the action's name.
	Name string `json:"name"`
	// Input is the call's input; nil sends none.
	Input json.RawMessage `json:"input,omitempty"`
}

// Config says what to check and what the checker may do.
type Config struct {
	// BaseURL is the site, such as http://127.0.0.1:8080.
	BaseURL string
	// Pages adds page URLs or paths to those found from the index and nav.
	Pages []string
	// Token is a bearer token the site accepts, for the checks that need
	// a signed-in caller or a bearer call.
	Token string
	// Cookie is a Cookie header value of a session, sent with every request
	// when there is no Token, and used by the Origin checks.
	Cookie string
	// Safe names an action that may run, for the checks that need a
	// successful call. It changes state on the server.
	Safe *Action
	// Confirm names a confirm action, to check that calling it without
	// confirm: true runs nothing. On a correct server nothing changes; on
	// a broken one it runs.
	Confirm *Action
	// Readiness adds the readiness checks (see [Readiness]): Markdown,
	// WebMCP, robots.txt, a sitemap, discovery, the MCP endpoint.
	Readiness bool
	// Burst allows the rate-limit check, which sends up to BurstLimit
	// calls that a correct server refuses.
	Burst bool
	// BurstLimit bounds the burst; default 300.
	BurstLimit int
	// MaxPages bounds the pages crawled; default 25.
	MaxPages int
	// HTTPClient sends the requests; default a client with a 10 s timeout
	// that does not follow redirects.
	HTTPClient *http.Client
}

// Result is the outcome of one check.
type Result struct {
	ID     string `json:"id"`
	Rule   string `json:"rule"`
	Level  Level  `json:"level"`
	Status Status `json:"status"`
	Detail string `json:"detail,omitempty"`
}

// Report is the outcome of a run.
type Report struct {
	BaseURL string   `json:"baseURL"`
	Pages   []string `json:"pages"`
	Results []Result `json:"results"`
	Passed  int      `json:"passed"`
	// Failed counts the must rules that failed; Warnings the should rules.
	Failed   int `json:"failed"`
	Warnings int `json:"warnings"`
	Skipped  int `json:"skipped"`
}

// MustFailed reports whether a must rule failed.
func (r *Report) MustFailed() bool {
	for _, res := range r.Results {
		if res.Status == Fail && res.Level == Must {
			return true
		}
	}
	return false
}

// Summary is the closing line: "N passed, N failed, N skipped".
func (r *Report) Summary() string {
	return fmt.Sprintf("%d passed, %d failed, %d warnings, %d skipped", r.Passed, r.Failed, r.Warnings, r.Skipped)
}

// AnyFailed reports whether any rule failed, must or should: the exit
// status of afford check --strict.
func (r *Report) AnyFailed() bool { return r.Failed+r.Warnings > 0 }

// Run runs every check of the catalogue against the server, and the
// readiness checks too when cfg.Readiness is set.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	checks := Catalogue()
	if cfg.Readiness {
		checks = append(checks, Readiness()...)
	}
	return RunChecks(ctx, cfg, checks)
}

// RunChecks runs the given checks.
func RunChecks(ctx context.Context, cfg Config, checks []Check) (*Report, error) {
	e, err := newEnv(ctx, cfg)
	if err != nil {
		return nil, err
	}
	rep := &Report{BaseURL: e.base.String()}
	for _, p := range e.pages {
		rep.Pages = append(rep.Pages, p.url)
	}
	for _, c := range checks {
		o := runOne(ctx, e, c)
		rep.Results = append(rep.Results, Result{ID: c.ID, Rule: c.Rule, Level: c.Level, Status: o.Status, Detail: o.Detail})
		switch o.Status {
		case Pass:
			rep.Passed++
		case Fail:
			if c.Level == Should {
				rep.Warnings++
			} else {
				rep.Failed++
			}
		default:
			rep.Skipped++
		}
	}
	return rep, nil
}

// runOne runs a check with a time bound, turning a panic into a failure.
func runOne(ctx context.Context, e *Env, c Check) (o Outcome) {
	defer func() {
		if p := recover(); p != nil {
			o = fail("the check crashed: %v", p)
		}
	}()
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	return c.Run(ctx, e)
}
