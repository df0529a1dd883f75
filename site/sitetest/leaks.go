package sitetest

import (
	"encoding/json"
	"html"
	"net/http"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// A graph must show what the page shows, and no more: under [site.Wrap]
// the HTML is the application's own, so nothing but the author keeps the
// two in step, and the obvious first step (an application's model type as
// an entity) hands agents members' emails and password hashes. Leaks is
// a cheap guard for a test.

// Leak is something a page's graph holds that the person would not see on
// the page: a string the HTML does not show, or a member named like a
// secret or an email address.
type Leak struct {
	// Path is the JSON Pointer of the value under the graph's entities,
	// such as /members/0/email.
	Path string
	// Why says what is wrong with it.
	Why string
}

// LeakOption changes what Leaks accepts.
type LeakOption func(*leakRules)

type leakRules struct{ allow []string }

// AllowLeak accepts values whose path matches one of the patterns:
// JSON Pointers in which * stands for one segment, such as /orders/*/id
// (an id an agent needs and the page keeps in a link it does not show).
func AllowLeak(patterns ...string) LeakOption {
	return func(r *leakRules) { r.allow = append(r.allow, patterns...) }
}

// secretName matches the member names that must never reach a graph,
// whatever the page shows: secrets, and email addresses, which a page
// may show its owner but a graph hands on to every agent the person uses.
var secretName = regexp.MustCompile(`(?i)(passw|secret|token|api_?key|salt|hash|otp|session|cookie|private_?key|e_?mail|ssn)`)

// emailValue matches a string that is an email address.
var emailValue = regexp.MustCompile(`^[^@\s]+@[^@\s]+\.[^@\s]+$`)

// Leaks reads the page at path twice with the client's credentials, as a
// browser (HTML) and as an agent (the graph), and returns every value of
// the graph's entities a person would not see on the page: a string
// (of three characters or more) that appears nowhere in the HTML, its
// attributes included, and any member named like a secret or an email
// (password, token, apiKey, hash, salt, session, email…) or holding an
// email address, shown or not. Numbers and booleans are not compared:
// pages format them their own way. It fails the test when either read
// does not answer 200.
func (c *Client) Leaks(path string, opts ...LeakOption) []Leak {
	c.tb.Helper()
	var rules leakRules
	for _, o := range opts {
		o(&rules)
	}
	page := c.Get(path, Header("Accept", "text/html"))
	if page.Code != http.StatusOK {
		c.tb.Fatalf("sitetest: GET %s as a browser: status %d", path, page.Code)
	}
	g := c.Graph(path)
	shown := html.UnescapeString(page.Body.String())
	var out []Leak
	names := make([]string, 0, len(g.Entities))
	for k := range g.Entities {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		b, err := json.Marshal(g.Entities[k])
		if err != nil {
			continue
		}
		var v any
		json.Unmarshal(b, &v)
		out = leaks(v, "/"+escape(k), k, shown, rules, out)
	}
	return out
}

// CheckNoLeaks fails the test for every [Leak] of the page at path.
func (c *Client) CheckNoLeaks(path string, opts ...LeakOption) {
	c.tb.Helper()
	for _, l := range c.Leaks(path, opts...) {
		c.tb.Errorf("sitetest: the graph of %s holds %s: %s", path, l.Path, l.Why)
	}
}

func leaks(v any, at, name, shown string, rules leakRules, out []Leak) []Leak {
	if rules.allowed(at) {
		return out
	}
	if secretName.MatchString(name) {
		return append(out, Leak{Path: at, Why: "named like a secret or an email address: keep it out of the entity (use a view type)"})
	}
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			out = leaks(x[k], at+"/"+escape(k), k, shown, rules, out)
		}
	case []any:
		for i, e := range x {
			out = leaks(e, at+"/"+strconv.Itoa(i), name, shown, rules, out)
		}
	case string:
		switch {
		case emailValue.MatchString(x):
			out = append(out, Leak{Path: at, Why: "an email address"})
		case len(x) >= 3 && !strings.Contains(shown, x):
			out = append(out, Leak{Path: at, Why: strconv.Quote(clip(x)) + " is not on the page"})
		}
	}
	return out
}

func (r leakRules) allowed(at string) bool {
	for _, p := range r.allow {
		if ok, _ := path.Match(p, at); ok {
			return true
		}
	}
	return false
}

func escape(s string) string { return pointerEscapes.Replace(s) }

var pointerEscapes = strings.NewReplacer("~", "~0", "/", "~1")

func clip(s string) string {
	if r := []rune(s); len(r) > 40 {
		return string(r[:40]) + "…"
	}
	return s
}
