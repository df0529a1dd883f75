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

// member is one member of a JSON object, in the order the server wrote it.
type member struct {
	key string
	val any
}

// object is a JSON object that keeps its members' order: an entity reads
// best in the order the site chose (slug, name, price, variants), which a
// Go map would lose.
type object []member

// decodeOrdered decodes JSON with objects as [object] and numbers as
// json.Number, so that values print exactly as the server sent them.
func decodeOrdered(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	return decodeValue(dec)
}

func decodeValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			var o object
			for dec.More() {
				k, err := dec.Token()
				if err != nil {
					return nil, err
				}
				v, err := decodeValue(dec)
				if err != nil {
					return nil, err
				}
				o = append(o, member{key: k.(string), val: v})
			}
			_, err := dec.Token()
			return o, err
		case '[':
			a := []any{}
			for dec.More() {
				v, err := decodeValue(dec)
				if err != nil {
					return nil, err
				}
				a = append(a, v)
			}
			_, err := dec.Token()
			return a, err
		}
	}
	return tok, nil
}

// renderer writes JSON values as indented text a person reads: "key:
// value" lines, lists as "- " items, small objects on one line.
type renderer struct {
	w    io.Writer
	full bool // never fold a long list
}

// value writes v under a "key:" label at the given indent.
func (r renderer) member(indent, key string, v any) {
	if line, ok := inline(v); ok {
		fmt.Fprintf(r.w, "%s%s: %s\n", indent, key, line)
		return
	}
	switch v := v.(type) {
	case object:
		fmt.Fprintf(r.w, "%s%s:\n", indent, key)
		for _, m := range v {
			r.member(indent+"  ", m.key, m.val)
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
		if o, ok := it.(object); ok && len(o) > 0 {
			// The first member on the dash's line, the rest under it.
			first := true
			for _, m := range o {
				prefix := indent + "  "
				if first {
					prefix = indent + "- "
				}
				if line, ok := inline(m.val); ok {
					fmt.Fprintf(r.w, "%s%s: %s\n", prefix, m.key, line)
				} else {
					r.member(prefix, m.key, m.val)
				}
				first = false
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
	case object:
		if len(v) == 0 {
			return "{}", true
		}
		parts := make([]string, len(v))
		for i, m := range v {
			s, ok := scalar(m.val)
			if !ok {
				// One level of nesting stays inline: price {amount, currency}.
				if sub, ok := v[i].val.(object); ok && allScalar(sub) {
					s, _ = inline(sub)
				} else {
					return "", false
				}
			}
			parts[i] = m.key + ": " + s
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

func allScalar(o object) bool {
	for _, m := range o {
		if _, ok := scalar(m.val); !ok {
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
	v, err := decodeOrdered(b)
	if err != nil {
		fmt.Fprintf(w, "%s%s: (unreadable)\n", indent, name)
		return
	}
	renderer{w: w, full: full}.member(indent, name, v)
}
