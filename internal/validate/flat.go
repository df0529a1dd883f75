package validate

import (
	"encoding/json"
	"math/big"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// flat is a quick check for the input schema most actions have: an object
// of strings, integers, numbers and booleans with simple constraints. It
// only ever answers "valid": anything it cannot judge, and every input
// that breaks a rule, goes to the full validator, so that what a caller
// reads (the verdict and its issues) is always the full validator's. It
// saves the common, valid call the JSON Schema library's work on numbers
// (exact big.Rat comparisons) and its bookkeeping.
//
// Whether a schema is flat is decided on its JSON, by an allow-list of
// keywords, so that a keyword this file does not know (or one a later
// version of the library adds) makes the schema not flat rather than
// unchecked. The constraints themselves (the compiled pattern, the format
// checker) are the library's own.
type flat struct {
	props    map[string]*flatProp
	required []string
	closed   bool // additionalProperties: false
}

// flatProp is one property's rules.
type flatProp struct {
	kind             string // "string", "integer", "number" or "boolean"
	minLen, maxLen   int    // -1 when absent
	pattern          jsonschema.Regexp
	format           *jsonschema.Format
	enum             map[string]bool // strings; nil when absent
	hasMin, hasMax   bool
	minimum, maximum int64
}

// objectKeywords and propertyKeywords are the keywords a flat schema may
// use; annotations (titles, descriptions, examples, defaults) change no
// verdict.
var (
	objectKeywords   = set("$schema", "$id", "type", "properties", "required", "additionalProperties", "title", "description", "examples", "default", "$comment")
	propertyKeywords = set("type", "title", "description", "examples", "example", "default", "$comment", "deprecated", "readOnly", "writeOnly",
		"minLength", "maxLength", "pattern", "format", "enum", "minimum", "maximum")
)

func set(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

// newFlat returns the quick check of a schema, or nil when the schema is
// not flat: raw is its JSON, s the same schema compiled.
func newFlat(raw []byte, s *jsonschema.Schema) *flat {
	var doc map[string]json.RawMessage
	if json.Unmarshal(raw, &doc) != nil || !onlyKeywords(doc, objectKeywords) || !oneType(s, "object") {
		return nil
	}
	if _, ok := doc["additionalProperties"]; ok {
		if b, isBool := s.AdditionalProperties.(bool); !isBool || b {
			return nil // false alone: a schema for extra members is not flat
		}
	}
	var props map[string]json.RawMessage
	if p, ok := doc["properties"]; ok && json.Unmarshal(p, &props) != nil {
		return nil
	}
	f := &flat{props: map[string]*flatProp{}, required: s.Required, closed: s.AdditionalProperties == false}
	for name, praw := range props {
		ps, ok := s.Properties[name]
		if !ok {
			return nil
		}
		p := newFlatProp(praw, ps)
		if p == nil {
			return nil
		}
		f.props[name] = p
	}
	if len(f.props) != len(s.Properties) {
		return nil
	}
	return f
}

func newFlatProp(raw json.RawMessage, s *jsonschema.Schema) *flatProp {
	var doc map[string]json.RawMessage
	if json.Unmarshal(raw, &doc) != nil || !onlyKeywords(doc, propertyKeywords) || s.Types == nil {
		return nil
	}
	types := s.Types.ToStrings()
	if len(types) != 1 {
		return nil
	}
	p := &flatProp{kind: types[0], minLen: -1, maxLen: -1, pattern: s.Pattern, format: s.Format}
	switch p.kind {
	case "string":
		if s.MinLength != nil {
			p.minLen = *s.MinLength
		}
		if s.MaxLength != nil {
			p.maxLen = *s.MaxLength
		}
		if s.Enum != nil {
			p.enum = map[string]bool{}
			for _, v := range s.Enum.Values {
				str, ok := v.(string)
				if !ok {
					return nil
				}
				p.enum[str] = true
			}
		}
	case "integer", "number", "boolean":
		if s.MinLength != nil || s.MaxLength != nil || s.Pattern != nil || s.Enum != nil {
			return nil
		}
		if s.Minimum != nil || s.Maximum != nil {
			if p.kind != "integer" {
				return nil
			}
			var ok bool
			if p.hasMin = s.Minimum != nil; p.hasMin {
				if p.minimum, ok = int64Of(s.Minimum); !ok {
					return nil
				}
			}
			if p.hasMax = s.Maximum != nil; p.hasMax {
				if p.maximum, ok = int64Of(s.Maximum); !ok {
					return nil
				}
			}
		}
	default:
		return nil
	}
	return p
}

// onlyKeywords reports whether every key of doc is allowed.
func onlyKeywords(doc map[string]json.RawMessage, allowed map[string]bool) bool {
	for k := range doc {
		if !allowed[k] {
			return false
		}
	}
	return true
}

// oneType reports whether s allows exactly the type t.
func oneType(s *jsonschema.Schema, t string) bool {
	if s.Types == nil {
		return false
	}
	ts := s.Types.ToStrings()
	return len(ts) == 1 && ts[0] == t
}

// int64Of returns r as an int64 when it is a whole number that fits.
func int64Of(r *big.Rat) (int64, bool) {
	if !r.IsInt() || !r.Num().IsInt64() {
		return 0, false
	}
	return r.Num().Int64(), true
}

// valid reports whether v surely matches the schema. false means "ask the
// full validator", not "invalid".
func (f *flat) valid(v any) bool {
	obj, ok := v.(map[string]any)
	if !ok {
		return false
	}
	for _, k := range f.required {
		if _, ok := obj[k]; !ok {
			return false
		}
	}
	for k, val := range obj {
		p, ok := f.props[k]
		if !ok {
			if f.closed {
				return false
			}
			continue
		}
		if !p.valid(val) {
			return false
		}
	}
	return true
}

func (p *flatProp) valid(v any) bool {
	switch p.kind {
	case "string":
		s, ok := v.(string)
		if !ok {
			return false
		}
		if p.minLen >= 0 || p.maxLen >= 0 {
			n := utf8.RuneCountInString(s)
			if (p.minLen >= 0 && n < p.minLen) || (p.maxLen >= 0 && n > p.maxLen) {
				return false
			}
		}
		if p.enum != nil && !p.enum[s] {
			return false
		}
		if p.pattern != nil && !p.pattern.MatchString(s) {
			return false
		}
		return p.format == nil || p.format.Validate(s) == nil
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "number":
		_, ok := v.(json.Number)
		return ok && p.format == nil
	case "integer":
		n, ok := v.(json.Number)
		if !ok || p.format != nil || strings.ContainsAny(string(n), ".eE") {
			return false // 1.0 and 1e0 are integers too: the full validator says so
		}
		i, err := strconv.ParseInt(string(n), 10, 64)
		if err != nil {
			return false
		}
		return (!p.hasMin || i >= p.minimum) && (!p.hasMax || i <= p.maximum)
	}
	return false
}
