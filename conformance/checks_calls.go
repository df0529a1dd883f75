package conformance

// The calls.* checks: how a call body is read, validated, and in what order
// the pipeline's steps answer.

import (
	"context"
	"encoding/json"
	"net/http"
	"regexp"
	"strconv"

	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/schemas"
)

func checkUnknownAction(ctx context.Context, e *Env) Outcome {
	if o, ok := needPages(e); !ok {
		return o
	}
	p := e.pages[0]
	res, err := e.post(ctx, p.url, `{"action":"affordCheckNoSuchAction","input":{}}`)
	if err != nil {
		return fail("%v", err)
	}
	if ok, msg := res.failedWith(http.StatusNotFound, protocol.CodeNotFound); !ok {
		return fail("%s: %s", p.url, msg)
	}
	return pass("404 not_found")
}

func checkNotJSON(ctx context.Context, e *Env) Outcome {
	p, a := e.findAction(func(*protocol.ActionDescriptor) bool { return true })
	if p == nil {
		return skip("no page lists an action")
	}
	res, err := e.post(ctx, p.url, `{"action":`+strconv.Quote(a.Name)+`,`)
	if err != nil {
		return fail("%v", err)
	}
	if ok, msg := res.failedWith(http.StatusBadRequest, protocol.CodeInvalidInput); !ok {
		return fail("%s: %s", p.url, msg)
	}
	return pass("400 invalid_input")
}

// callable finds an action this checker can call past the expose check
// (public; session ones too with a token) whose input must be an object.
//
// It is a probe: the call it gets is invalid on purpose, and the action is
// chosen so that even a broken server that skipped validation is unlikely
// to run anything: never a confirm action, and read-only actions first,
// then actions whose input has required properties (which an invalid call
// does not carry).
func (e *Env) callable(extra func(*protocol.ActionDescriptor) bool) (*page, *protocol.ActionDescriptor) {
	return e.probe(func(p *page, a *protocol.ActionDescriptor) bool {
		ok := a.Expose == protocol.ExposePublic || e.cfg.Token != ""
		return ok && (extra == nil || extra(a))
	})
}

// probe returns the best action for an invalid call among those pred
// accepts: an object input, never a confirm action, read-only actions
// first, then those with required properties.
func (e *Env) probe(pred func(*page, *protocol.ActionDescriptor) bool) (*page, *protocol.ActionDescriptor) {
	var bestPage *page
	var best *protocol.ActionDescriptor
	bestScore := -1
	for _, p := range e.pages {
		for i := range p.graph.Actions {
			a := &p.graph.Actions[i]
			if a.Expose == protocol.ExposeConfirm || !objectInput(a) || !pred(p, a) {
				continue
			}
			score := 0
			if requiredInput(a) {
				score++
			}
			if a.ReadOnly {
				score += 2
			}
			if score > bestScore {
				bestPage, best, bestScore = p, a, score
			}
		}
	}
	return bestPage, best
}

// signedIn reports whether the graphs show their caller signed in: some
// session or confirm action, on any page, is available to it. (A page may
// have none available even to a signed-in caller: an account page whose
// actions are for browser sessions only.)
func (e *Env) signedIn() bool {
	for _, p := range e.pages {
		for _, a := range p.graph.Actions {
			if a.Expose.NeedsSession() && a.Available {
				return true
			}
		}
	}
	return false
}

var pointer = regexp.MustCompile(`^(/([^~/]|~[01])*)*$`)

func checkInvalidInput(ctx context.Context, e *Env) Outcome {
	p, a := e.callable(nil)
	if p == nil {
		return skip("no action with an object input that this checker may call")
	}
	res, err := e.post(ctx, p.url, invalidCall(a.Name))
	if err != nil {
		return fail("%v", err)
	}
	if ok, msg := res.failedWith(http.StatusBadRequest, protocol.CodeInvalidInput); !ok {
		return fail("%s %s: %s", p.url, a.Name, msg)
	}
	var raw struct {
		Error struct {
			Issues []map[string]any `json:"issues"`
		} `json:"error"`
	}
	json.Unmarshal(res.body, &raw)
	if len(raw.Error.Issues) == 0 {
		return fail("%s %s: invalid_input without issues", p.url, a.Name)
	}
	for _, is := range raw.Error.Issues {
		path, okp := is["path"].(string)
		_, okm := is["message"].(string)
		_, okk := is["keyword"].(string)
		if !okp || !okm || !okk {
			return fail("%s %s: an issue lacks path, message or keyword: %v", p.url, a.Name, is)
		}
		if !pointer.MatchString(path) {
			return fail("%s %s: issue path %q is not a JSON Pointer", p.url, a.Name, path)
		}
	}
	if err := schemas.Validate(schemas.Delta, res.body); err != nil {
		return fail("the delta does not satisfy the delta schema: %v", err)
	}
	return pass("%s: %d issues", a.Name, len(raw.Error.Issues))
}

// checkAuthBeforeInput sends invalid input, anonymously, to a session
// action that an anonymous caller can see: one the index lists without
// credentials. An action the site hides from anonymous callers
// (a visibility predicate) answers them not_found, rightly, and is no use.
func checkAuthBeforeInput(ctx context.Context, e *Env) Outcome {
	seen, hidden := e.anonymousActions(ctx), 0
	p, a := e.probe(func(p *page, a *protocol.ActionDescriptor) bool {
		if !a.Expose.NeedsSession() {
			return false
		}
		if seen != nil && !seen[p.graph.Route+" "+a.Name] {
			hidden++
			return false
		}
		return true
	})
	if p == nil {
		if hidden > 0 {
			return skip("every session action found is hidden from anonymous callers (the index without credentials does not list it): they answer 404 not_found, as they should, so expose cannot be seen to come before input")
		}
		return skip("no session action with an object input was found (the checker never probes confirm actions)")
	}
	res, err := e.post(ctx, p.url, invalidCall(a.Name), anonymous...)
	if err != nil {
		return fail("%v", err)
	}
	if ok, msg := res.failedWith(http.StatusUnauthorized, protocol.CodeUnauthorized); !ok {
		return fail("%s %s, anonymous, invalid input: %s", p.url, a.Name, msg)
	}
	return pass("%s: 401 before validation", a.Name)
}

// checkInputBeforeGuard sends invalid input to an action that is
// unavailable because of its guard. An action that is unavailable because
// its caller is not signed in is no use: the expose check answers first
// (401), correctly.
func checkInputBeforeGuard(ctx context.Context, e *Env) Outcome {
	var as []string // the caller: the checker's credentials
	// The graphs were read when the checks began; other checks may have
	// changed the state since (an item added to an empty cart), so an
	// action is taken only if a fresh read still lists it unavailable.
	p, a := e.probe(func(p *page, a *protocol.ActionDescriptor) bool {
		if a.Available {
			return false
		}
		return (a.Expose == protocol.ExposePublic || (e.cfg.Token != "" && e.signedIn())) && e.stillUnavailable(ctx, p.url, a.Name)
	})
	if p == nil {
		// Look as an anonymous caller: public actions are often
		// unavailable to one (an empty cart).
		as = anonymous
		for _, pg := range e.pages {
			res, err := e.do(ctx, http.MethodGet, pg.url, nil, append([]string{"Accept", protocol.MediaType}, anonymous...)...)
			var g protocol.Graph
			if err != nil || res.status != http.StatusOK || json.Unmarshal(res.body, &g) != nil {
				continue
			}
			anon := &page{url: pg.url, graph: &g}
			probe := &Env{pages: []*page{anon}}
			if ap, aa := probe.probe(func(_ *page, c *protocol.ActionDescriptor) bool {
				return !c.Available && c.Expose == protocol.ExposePublic
			}); ap != nil {
				p, a = ap, aa
			}
			if p != nil {
				break
			}
		}
	}
	if p == nil {
		return skip("no unavailable action that this checker may call was found")
	}
	res, err := e.post(ctx, p.url, invalidCall(a.Name), as...)
	if err != nil {
		return fail("%v", err)
	}
	if ok, msg := res.failedWith(http.StatusBadRequest, protocol.CodeInvalidInput); !ok {
		return fail("%s %s (unavailable: %s), invalid input: %s", p.url, a.Name, a.Reason, msg)
	}
	return pass("%s: 400 before its guard", a.Name)
}

func checkUnknownFields(ctx context.Context, e *Env) Outcome {
	s := e.cfg.Safe
	if s == nil {
		return skip("needs an action that may run: --safe-action")
	}
	body := map[string]any{"action": s.Name, "afford-check-unknown": true}
	if s.Input != nil {
		body["input"] = s.Input
	}
	b, _ := json.Marshal(body)
	res, err := e.post(ctx, e.abs(s.Page), string(b))
	if err != nil {
		return fail("%v", err)
	}
	d, err := res.delta()
	if err != nil || res.status != http.StatusOK || !d.OK {
		return fail("%s %s with an unknown field: status %d %s", s.Page, s.Name, res.status, res.body)
	}
	if err := schemas.Validate(schemas.Delta, res.body); err != nil {
		return fail("the delta does not satisfy the delta schema: %v", err)
	}
	return pass("%s ran", s.Name)
}

// stillUnavailable reads the page's graph again, as the checker's token,
// and reports whether it still lists the action as unavailable.
func (e *Env) stillUnavailable(ctx context.Context, pageURL, action string) bool {
	res, err := e.getGraph(ctx, pageURL)
	var g protocol.Graph
	if err != nil || res.status != http.StatusOK || json.Unmarshal(res.body, &g) != nil {
		return false
	}
	for _, a := range g.Actions {
		if a.Name == action {
			return !a.Available
		}
	}
	return false
}

// anonymousActions returns the actions the site index lists to a caller
// without credentials, as "route name"; nil when it cannot be read.
func (e *Env) anonymousActions(ctx context.Context) map[string]bool {
	res, err := e.do(ctx, http.MethodGet, e.abs(protocol.WellKnownPath), nil, anonymous...)
	var idx protocol.SiteIndex
	if err != nil || res.status != http.StatusOK || json.Unmarshal(res.body, &idx) != nil {
		return nil
	}
	out := map[string]bool{}
	for _, r := range idx.Routes {
		for _, a := range r.Actions {
			out[r.Route+" "+a.Name] = true
		}
	}
	return out
}
