// Package strictjson parses untrusted JSON into the generic values the
// schema validator reads (maps, slices, strings, json.Number, bools, nil),
// more strictly than encoding/json: a key repeated in one object, or two
// keys that differ only in case, is an error instead of a silent "last one
// wins"; nesting is bounded; invalid UTF-8 is an error rather than being
// replaced. It is the first thing that touches a call's body, so it is
// fuzzed against encoding/json.
package strictjson

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Error is a parse failure with the byte offset where it was found.
type Error struct {
	Offset int
	Msg    string
}

func (e *Error) Error() string { return fmt.Sprintf("JSON at byte %d: %s", e.Offset, e.Msg) }

// Object is a parsed top-level object with the raw bytes of each member's
// value, so a member can be decoded into a Go type without re-encoding.
type Object struct {
	Values map[string]any
	Raw    map[string][]byte
}

// ParseObject parses a document that must be a JSON object, keeping the
// raw bytes of its members' values.
func ParseObject(data []byte, maxDepth int) (*Object, error) {
	p := parser{data: data, maxDepth: maxDepth, raw: map[string][]byte{}}
	v, err := p.document()
	if err != nil {
		return nil, err
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, &Error{0, "the document is not a JSON object"}
	}
	return &Object{Values: m, Raw: p.raw}, nil
}

// Parse parses a document that may be any JSON value, such as a call's
// input given apart from its call.
func Parse(data []byte, maxDepth int) (any, error) {
	p := parser{data: data, maxDepth: maxDepth}
	return p.document()
}

type parser struct {
	data     []byte
	pos      int
	depth    int
	maxDepth int
	raw      map[string][]byte // spans of the top-level object's members, when wanted
}

func (p *parser) fail(msg string, args ...any) error {
	return &Error{p.pos, fmt.Sprintf(msg, args...)}
}

func (p *parser) document() (any, error) {
	v, err := p.value()
	if err != nil {
		return nil, err
	}
	p.space()
	if p.pos != len(p.data) {
		return nil, p.fail("unexpected data after the value")
	}
	return v, nil
}

func (p *parser) space() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *parser) value() (any, error) {
	p.space()
	if p.pos >= len(p.data) {
		return nil, p.fail("unexpected end of input")
	}
	switch c := p.data[p.pos]; {
	case c == '{':
		return p.object()
	case c == '[':
		return p.array()
	case c == '"':
		return p.string()
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	case p.literal("true"):
		return true, nil
	case p.literal("false"):
		return false, nil
	case p.literal("null"):
		return nil, nil
	}
	return nil, p.fail("invalid character %q", p.data[p.pos])
}

func (p *parser) literal(word string) bool {
	if strings.HasPrefix(string(p.data[p.pos:min(len(p.data), p.pos+len(word))]), word) {
		p.pos += len(word)
		return true
	}
	return false
}

func (p *parser) enter() error {
	p.depth++
	if p.depth > p.maxDepth {
		return p.fail("nested more than %d levels deep", p.maxDepth)
	}
	return nil
}

func (p *parser) object() (any, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	p.pos++ // {
	m := map[string]any{}
	// keys are the object's first keys, with their lower case, compared
	// one by one (no allocation for the small objects calls send); folded
	// indexes the lower case of the rest.
	var keys, lowers [foldAt]string
	n := 0
	var folded map[string]string // lower-cased key -> key
	p.space()
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		p.depth--
		return m, nil
	}
	for {
		p.space()
		if p.pos >= len(p.data) || p.data[p.pos] != '"' {
			return nil, p.fail("expected a property name")
		}
		keyAt := p.pos
		key, err := p.string()
		if err != nil {
			return nil, err
		}
		if _, dup := m[key]; dup {
			return nil, &Error{keyAt, fmt.Sprintf("property %q appears twice", key)}
		}
		lower := strings.ToLower(key)
		if other, clash := foldClash(keys[:min(n, foldAt)], lowers[:min(n, foldAt)], folded, lower); clash {
			return nil, &Error{keyAt, fmt.Sprintf("properties %q and %q differ only in case", other, key)}
		}
		switch {
		case n < foldAt:
			keys[n], lowers[n] = key, lower
		case n == foldAt:
			folded = make(map[string]string, 2*foldAt)
			for i, k := range keys {
				folded[lowers[i]] = k
			}
			fallthrough
		default:
			folded[lower] = key
		}
		n++
		p.space()
		if p.pos >= len(p.data) || p.data[p.pos] != ':' {
			return nil, p.fail("expected ':' after property name")
		}
		p.pos++
		p.space()
		start := p.pos
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		if p.raw != nil && p.depth == 1 {
			p.raw[key] = p.data[start:p.pos]
		}
		m[key] = v
		p.space()
		if p.pos >= len(p.data) {
			return nil, p.fail("unexpected end of input in an object")
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
		case '}':
			p.pos++
			p.depth--
			return m, nil
		default:
			return nil, p.fail("expected ',' or '}' in an object")
		}
	}
}

// foldAt is how many keys an object's case check compares one by one
// before it indexes them.
const foldAt = 8

// foldClash returns the key among the first keys (by their lowers) or
// the rest (folded) whose lower case is lower.
func foldClash(keys, lowers []string, folded map[string]string, lower string) (string, bool) {
	for i, l := range lowers {
		if l == lower {
			return keys[i], true
		}
	}
	k, ok := folded[lower] // a nil map has none
	return k, ok
}

func (p *parser) array() (any, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	p.pos++ // [
	a := []any{}
	p.space()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		p.depth--
		return a, nil
	}
	for {
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		a = append(a, v)
		p.space()
		if p.pos >= len(p.data) {
			return nil, p.fail("unexpected end of input in an array")
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
		case ']':
			p.pos++
			p.depth--
			return a, nil
		default:
			return nil, p.fail("expected ',' or ']' in an array")
		}
	}
}

func (p *parser) number() (any, error) {
	start := p.pos
	d := p.data
	if p.pos < len(d) && d[p.pos] == '-' {
		p.pos++
	}
	switch {
	case p.pos < len(d) && d[p.pos] == '0':
		p.pos++
	case p.pos < len(d) && d[p.pos] >= '1' && d[p.pos] <= '9':
		for p.pos < len(d) && d[p.pos] >= '0' && d[p.pos] <= '9' {
			p.pos++
		}
	default:
		return nil, p.fail("invalid number")
	}
	if p.pos < len(d) && d[p.pos] == '.' {
		p.pos++
		if !p.digits() {
			return nil, p.fail("invalid number: digits expected after '.'")
		}
	}
	if p.pos < len(d) && (d[p.pos] == 'e' || d[p.pos] == 'E') {
		p.pos++
		if p.pos < len(d) && (d[p.pos] == '+' || d[p.pos] == '-') {
			p.pos++
		}
		if !p.digits() {
			return nil, p.fail("invalid number: digits expected in the exponent")
		}
	}
	if p.pos-start > maxNumberLen {
		return nil, &Error{start, fmt.Sprintf("number longer than %d characters", maxNumberLen)}
	}
	if e := exponent(d[start:p.pos]); e > maxExponent || e < -maxExponent {
		return nil, &Error{start, "number out of range"}
	}
	return json.Number(d[start:p.pos]), nil
}

// Numbers are bounded: schema validators compare them exactly, with big
// rationals, and a literal such as 1e999999999 would cost seconds of CPU
// and megabytes of memory from a dozen bytes of input. Nothing a call can
// mean needs more than float64's range.
const (
	maxNumberLen = 128
	maxExponent  = 400
)

// exponent returns the value of a number literal's exponent, saturating.
func exponent(lit []byte) int {
	i := strings.IndexAny(string(lit), "eE")
	if i < 0 {
		return 0
	}
	e, neg := 0, false
	for _, c := range lit[i+1:] {
		switch {
		case c == '-':
			neg = true
		case c >= '0' && c <= '9':
			if e < 1_000_000 {
				e = e*10 + int(c-'0')
			}
		}
	}
	if neg {
		return -e
	}
	return e
}

func (p *parser) digits() bool {
	start := p.pos
	for p.pos < len(p.data) && p.data[p.pos] >= '0' && p.data[p.pos] <= '9' {
		p.pos++
	}
	return p.pos > start
}
