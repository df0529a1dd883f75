// Package negotiate decides which door a request of a page knocks at: a
// graph (the Affordances media type in Accept, or ?affordances=1), an
// Affordances call (a POST with the media type as its Content-Type), the
// page's Markdown (text/markdown preferred to HTML), or, by default, the
// page's HTML. It reads headers and the query only.
package negotiate

import (
	"iter"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/affordances-go/affordances/protocol"
)

// Graph reports whether a GET or HEAD asks for an Affordances
// document: its Accept header names the media type with a non-zero quality,
// or its query has affordances=1. Nothing else counts: */* and
// application/json get HTML.
func Graph(r *http.Request) bool {
	return acceptsMediaType(r.Header.Values("Accept")) || queryAsks(r.URL.RawQuery)
}

// GraphMD reports whether a request for a graph asks for the page's md
// in it: the media type in its Accept header with the parameter md=1.
func GraphMD(r *http.Request) bool {
	for params := range mediaTypeEntries(r.Header.Values("Accept")) {
		if md, ok := param(params, "md"); ok && md == "1" {
			return true
		}
	}
	return false
}

// Call reports whether a POST is an Affordances call, by its
// Content-Type.
func Call(r *http.Request) bool {
	ct := r.Header.Get("Content-Type")
	if ct == "" {
		return false
	}
	mt, _, err := mime.ParseMediaType(ct)
	return err == nil && mt == protocol.MediaType
}

// mediaTypeEntries yields the parameters (the text after the media
// type) of each entry of Accept values that names the Affordances media
// type.
func mediaTypeEntries(values []string) iter.Seq[string] {
	return func(yield func(string) bool) {
		for _, v := range values {
			for part := range strings.SplitSeq(v, ",") {
				mt, params, _ := strings.Cut(part, ";")
				if strings.EqualFold(strings.TrimSpace(mt), protocol.MediaType) && !yield(params) {
					return
				}
			}
		}
	}
}

func acceptsMediaType(values []string) bool {
	for params := range mediaTypeEntries(values) {
		if q, ok := quality(params); !ok || q != 0 {
			return true
		}
	}
	return false
}

// Markdown reports whether a request that asked for no graph prefers
// Markdown to HTML: its Accept names text/markdown with a quality above
// that of HTML (text/html, else text/*, else */*), or equal to it and
// listed first. A browser's Accept never does; "text/markdown" alone, or
// "text/markdown, text/html", does.
func Markdown(r *http.Request) bool {
	md, html := -1.0, -1.0
	mdAt, htmlAt, htmlRank := 0, 0, 0
	i := 0
	for _, v := range r.Header.Values("Accept") {
		for part := range strings.SplitSeq(v, ",") {
			i++
			mt, params, _ := strings.Cut(part, ";")
			mt = strings.ToLower(strings.TrimSpace(mt))
			q, _ := quality(params)
			rank := map[string]int{"text/html": 3, "text/*": 2, "*/*": 1}[mt]
			switch {
			case mt == "text/markdown":
				if md < 0 {
					md, mdAt = q, i
				}
			case rank > htmlRank:
				html, htmlAt, htmlRank = q, i, rank
			}
		}
	}
	if md <= 0 {
		return false
	}
	return md > html || (md == html && (htmlRank < 3 || mdAt < htmlAt))
}

// MarkdownForTools reports whether a request's Accept asks for
// text/markdown with the parameter actions=tools: the reader calls the
// page's actions as tools that carry their inputs (the page's WebMCP
// tools), so the Markdown leaves out each action's input and how to POST
// it. Only the Markdown it gets changes; Markdown still decides whether
// it gets Markdown at all.
func MarkdownForTools(r *http.Request) bool {
	for _, v := range r.Header.Values("Accept") {
		for part := range strings.SplitSeq(v, ",") {
			mt, params, _ := strings.Cut(part, ";")
			if !strings.EqualFold(strings.TrimSpace(mt), "text/markdown") {
				continue
			}
			v, _ := param(params, "actions")
			return strings.EqualFold(v, "tools")
		}
	}
	return false
}

// quality reads the q parameter of an Accept entry's parameters.
func quality(params string) (float64, bool) {
	v, ok := param(params, "q")
	if !ok {
		return 1, false
	}
	q, err := strconv.ParseFloat(v, 64)
	return q, err == nil
}

// param returns the value of the named parameter among an Accept entry's
// parameters (the text after its media type), unquoted.
func param(params, name string) (string, bool) {
	for p := range strings.SplitSeq(params, ";") {
		k, v, _ := strings.Cut(strings.TrimSpace(p), "=")
		if strings.EqualFold(strings.TrimSpace(k), name) {
			return strings.Trim(strings.TrimSpace(v), `"`), true
		}
	}
	return "", false
}

// queryAsks reports whether a raw query holds affordances=1.
func queryAsks(raw string) bool {
	if !strings.Contains(raw, "ffordances") && !strings.Contains(raw, "%") {
		return false
	}
	for part := range strings.SplitSeq(raw, "&") {
		if k, v, _ := strings.Cut(part, "="); isAffordancesKey(k) && v == "1" {
			return true
		}
	}
	return false
}

func isAffordancesKey(k string) bool {
	if k == "affordances" {
		return true
	}
	if !strings.Contains(k, "%") {
		return false
	}
	u, err := url.QueryUnescape(k)
	return err == nil && u == "affordances"
}

// stripAffordances removes every affordances parameter from a raw query,
// keeping the others in their order, so the page's loader sees the query a
// browser would have sent.
func stripAffordances(raw string) string {
	var b strings.Builder
	for part := range strings.SplitSeq(raw, "&") {
		if k, _, _ := strings.Cut(part, "="); isAffordancesKey(k) || part == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('&')
		}
		b.WriteString(part)
	}
	return b.String()
}

// WithoutQuery returns r with the affordances parameters
// removed from its URL when the query alias asked for a document, or r
// itself otherwise: a browser's own query reaches the loader untouched.
func WithoutQuery(r *http.Request) *http.Request {
	raw := r.URL.RawQuery
	if !queryAsks(raw) {
		return r
	}
	stripped := stripAffordances(raw)
	if stripped == raw {
		return r
	}
	r2 := new(http.Request)
	*r2 = *r // keeps the path values the mux matched
	u := *r.URL
	u.RawQuery = stripped
	r2.URL = &u
	if r.RequestURI != "" {
		r2.RequestURI = u.RequestURI()
	}
	return r2
}
