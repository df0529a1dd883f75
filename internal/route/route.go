// Package route is the protocol's route syntax, in one place for the
// site, its MCP tools and the conformance checker: a path in which [name]
// stands for one segment and [...name] for the rest of the path, as in
// /products/[slug] or /docs/[...path].
package route

import (
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Route is a parsed route.
type Route struct {
	text   string
	params bool
	re     *regexp.Regexp
}

// Parse parses a route. Brackets must pair up and name something.
func Parse(s string) (Route, error) {
	var b strings.Builder
	b.WriteString("^")
	rest := s
	params := false
	for rest != "" {
		i := strings.IndexByte(rest, '[')
		if i < 0 {
			if strings.IndexByte(rest, ']') >= 0 {
				return Route{}, fmt.Errorf("route %q: ] without [", s)
			}
			b.WriteString(regexp.QuoteMeta(rest))
			break
		}
		j := strings.IndexByte(rest[i:], ']')
		if j < 0 {
			return Route{}, fmt.Errorf("route %q: unclosed [", s)
		}
		j += i
		if strings.IndexByte(rest[:i], ']') >= 0 {
			return Route{}, fmt.Errorf("route %q: ] without [", s)
		}
		name := rest[i+1 : j]
		b.WriteString(regexp.QuoteMeta(rest[:i]))
		if rest, ok := strings.CutPrefix(name, "..."); ok {
			name = rest
			b.WriteString(`[^?#]+`)
		} else {
			b.WriteString(`[^/?#]+`)
		}
		if name == "" || strings.ContainsAny(name, "[/") {
			return Route{}, fmt.Errorf("route %q: a parameter needs a name", s)
		}
		params = true
		rest = rest[j+1:]
	}
	// A page's address may carry a query; a fragment is never sent.
	b.WriteString(`(\?[^#]*)?$`)
	return Route{text: s, params: params, re: regexp.MustCompile(b.String())}, nil
}

// Fill returns a path of the route with every parameter given the value
// seg (one segment, used as it is): a URL of the route that the site is
// unlikely to have, for a probe such as the conformance checker's.
func (r Route) Fill(seg string) string {
	var b strings.Builder
	rest := r.text
	for {
		i := strings.IndexByte(rest, '[')
		j := strings.IndexByte(rest, ']')
		if i < 0 || j < i {
			b.WriteString(rest)
			return b.String()
		}
		b.WriteString(rest[:i])
		b.WriteString(seg)
		rest = rest[j+1:]
	}
}

// MustParse is Parse for routes known to be valid; it panics otherwise.
func MustParse(s string) Route {
	r, err := Parse(s)
	if err != nil {
		panic(err)
	}
	return r
}

// String returns the route as written.
func (r Route) String() string { return r.text }

// HasParams reports whether the route has a parameter.
func (r Route) HasParams() bool { return r.params }

// Match reports whether a path (with or without a query) is one of the
// route's pages.
func (r Route) Match(path string) bool { return r.re != nil && r.re.MatchString(path) }

// Pattern is the regular expression Match uses, in the syntax JSON Schema's
// "pattern" shares with Go (no look-around, no back-references).
func (r Route) Pattern() string { return r.re.String() }

// Qualifier names the route in one lower-camel-case word, for a name
// that must tell two routes apart, such as an MCP tool's: its segments
// joined, each segment's words capitalised, a parameter read as "by" and
// its name ("/products/[slug]" is productsBySlug, "/dials/new" is
// dialsNew, "/files/[...path]" is filesByPath), and "/" is home.
func (r Route) Qualifier() string {
	var b strings.Builder
	for _, seg := range strings.Split(r.text, "/") {
		if strings.HasPrefix(seg, "[") {
			seg = "by " + strings.Trim(seg, "[.]")
		}
		for _, w := range strings.FieldsFunc(seg, func(c rune) bool { return !unicode.IsLetter(c) && !unicode.IsDigit(c) }) {
			first, size := utf8.DecodeRuneInString(w)
			if b.Len() == 0 {
				b.WriteRune(unicode.ToLower(first))
			} else {
				b.WriteRune(unicode.ToUpper(first))
			}
			b.WriteString(w[size:])
		}
	}
	if b.Len() == 0 {
		return "home"
	}
	return b.String()
}

// FromPattern turns a net/http ServeMux pattern into a route: {slug}
// becomes [slug], {path...} becomes [...path], and {$} is dropped. A
// method or host in the pattern is not part of the route.
func FromPattern(pattern string) (string, error) {
	var b strings.Builder
	rest := pattern
	for {
		i := strings.IndexByte(rest, '{')
		if i < 0 {
			b.WriteString(rest)
			return b.String(), nil
		}
		b.WriteString(rest[:i])
		j := strings.IndexByte(rest[i:], '}')
		if j < 0 {
			return "", fmt.Errorf("pattern %q: unclosed {", pattern)
		}
		name := rest[i+1 : i+j]
		rest = rest[i+j+1:]
		switch {
		case name == "$":
		case strings.HasSuffix(name, "..."):
			b.WriteString("[..." + strings.TrimSuffix(name, "...") + "]")
		default:
			b.WriteString("[" + name + "]")
		}
	}
}

// PathValues passes to set the values of a ServeMux pattern's wildcards in a
// path the pattern matched (escaped, as URL.EscapedPath gives it), as the
// mux gives them to its handlers: each {name} is its segment, unescaped;
// a final {name...} is the rest of the path, unescaped. set is called
// once per wildcard, in order. It reports false for a segment that does
// not unescape (a mux would not have matched it).
func PathValues(pattern, escapedPath string, set func(name, value string)) bool {
	path := escapedPath
	for seg := range strings.SplitSeq(strings.TrimPrefix(pattern, "/"), "/") {
		path = strings.TrimPrefix(path, "/")
		name, isWild := strings.CutPrefix(seg, "{")
		name, _ = strings.CutSuffix(name, "}")
		var value string
		switch {
		case !isWild || name == "$":
			_, path, _ = strings.Cut(path, "/")
			continue
		case strings.HasSuffix(name, "..."):
			name, value, path = strings.TrimSuffix(name, "..."), path, ""
		default:
			value, path, _ = strings.Cut(path, "/")
		}
		v, err := url.PathUnescape(value)
		if err != nil {
			return false
		}
		set(name, v)
	}
	return true
}

// LastSegment returns the last segment of a path or URL, trailing
// slashes ignored: an approval's id from its id, its page's path or its
// URL, which a call and a door may bring in any of the three forms.
func LastSegment(s string) string {
	s = strings.TrimRight(s, "/")
	if i := strings.LastIndexByte(s, '/'); i >= 0 {
		s = s[i+1:]
	}
	return s
}
