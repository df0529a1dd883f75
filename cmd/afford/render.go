package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// foldAfter is how many items of a list get shows before folding the rest
// into a count; --full shows every item.
const foldAfter = 20

// foldShow is how many items of a folded list are shown.
const foldShow = 10

// decodeValue decodes JSON with numbers as json.Number, so that values
// print exactly as the server sent them.
func decodeValue(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	return v, err
}

// renderer writes JSON values as indented text a person reads: "key:
// value" lines, lists as "- " items, small objects on one line.
type renderer struct {
	w    io.Writer
	full bool // never fold a long list
}

// member writes v under a "key:" label at the given indent. Object
// members come in key order: the client hands entities over as Go maps.
func (r renderer) member(indent, key string, v any) {
	if line, ok := inline(v); ok {
		fmt.Fprintf(r.w, "%s%s: %s\n", indent, key, line)
		return
	}
	switch v := v.(type) {
	case map[string]any:
		fmt.Fprintf(r.w, "%s%s:\n", indent, key)
		for _, k := range sortedKeys(v) {
			r.member(indent+"  ", k, v[k])
		}
	case []any:
		fmt.Fprintf(r.w, "%s%s: (%d)\n", indent, key, len(v))
		r.list(indent+"  ", v)
	}
}

// list writes a list's items, folding a long one unless full.
func (r renderer) list(indent string, items []any) {
	shown := items
	if !r.full && len(items) > foldAfter {
		shown = items[:foldShow]
	}
	for _, it := range shown {
		if line, ok := inline(it); ok {
			fmt.Fprintf(r.w, "%s- %s\n", indent, line)
			continue
		}
		if o, ok := it.(map[string]any); ok && len(o) > 0 {
			// The first member on the dash's line, the rest under it.
			for i, k := range sortedKeys(o) {
				prefix := indent + "  "
				if i == 0 {
					prefix = indent + "- "
				}
				r.member(prefix, k, o[k])
			}
			continue
		}
		r.member(indent, "-", it)
	}
	if len(shown) < len(items) {
		fmt.Fprintf(r.w, "%s… %d more (--full shows them all)\n", indent, len(items)-len(shown))
	}
}

// inlineWidth is the longest one-line rendering of an object or list.
const inlineWidth = 100

// inline renders v on one line when it is a scalar, or an object or list
// of scalars short enough to read at a glance.
func inline(v any) (string, bool) {
	switch v := v.(type) {
	case map[string]any:
		if len(v) == 0 {
			return "{}", true
		}
		var parts []string
		for _, k := range sortedKeys(v) {
			s, ok := scalar(v[k])
			if !ok {
				// One level of nesting stays inline: price {amount, currency}.
				if sub, ok := v[k].(map[string]any); ok && allScalar(sub) {
					s, _ = inline(sub)
				} else {
					return "", false
				}
			}
			parts = append(parts, k+": "+s)
		}
		line := "{" + strings.Join(parts, ", ") + "}"
		return line, len(line) <= inlineWidth
	case []any:
		if len(v) == 0 {
			return "[]", true
		}
		parts := make([]string, len(v))
		for i, it := range v {
			s, ok := scalar(it)
			if !ok {
				return "", false
			}
			parts[i] = s
		}
		line := "[" + strings.Join(parts, ", ") + "]"
		return line, len(line) <= inlineWidth
	}
	return scalar(v)
}

func allScalar(o map[string]any) bool {
	for _, x := range o {
		if _, ok := scalar(x); !ok {
			return false
		}
	}
	return true
}

// scalar writes a string bare unless it would read as something else
// (empty, padded, several lines), and other scalars as JSON writes them.
func scalar(v any) (string, bool) {
	switch v := v.(type) {
	case nil:
		return "null", true
	case string:
		if v == "" || strings.TrimSpace(v) != v || strings.ContainsAny(v, "\n\"{}[],") {
			b, _ := json.Marshal(v)
			return string(b), true
		}
		return v, true
	case json.Number:
		return string(v), true
	case bool:
		if v {
			return "true", true
		}
		return "false", true
	}
	return "", false
}

// renderEntity writes one entity of a graph or a delta.
func renderEntity(w io.Writer, indent, name string, raw any, full bool) {
	b, err := json.Marshal(raw)
	if err != nil {
		fmt.Fprintf(w, "%s%s: (unreadable)\n", indent, name)
		return
	}
	v, err := decodeValue(b)
	if err != nil {
		fmt.Fprintf(w, "%s%s: (unreadable)\n", indent, name)
		return
	}
	renderer{w: w, full: full}.member(indent, name, v)
}
