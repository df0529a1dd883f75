package site

import (
	"fmt"
	"math/big"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"

	"github.com/affordances-go/affordances/internal/schema"
)

// plainMessage writes a failed keyword as a short sentence a person and a
// model both read without knowing JSON Schema: "must be at least 1",
// "must be one of S, M, L", "must look like TEE-BLK-M". The path
// names the field, so the message does not repeat it. s is the schema of
// the value that failed, when known: a pattern is explained by its
// example or description, never by the regular expression alone.
func plainMessage(k jsonschema.ErrorKind, s *schema.Schema) string {
	switch k := k.(type) {
	case *kind.Type:
		return "must be " + typeWords(k.Want)
	case *kind.Enum:
		return "must be one of " + listWords(k.Want)
	case *kind.Const:
		return "must be " + valueWords(k.Want)
	case *kind.Minimum:
		return "must be at least " + ratWords(k.Want)
	case *kind.Maximum:
		return "must be at most " + ratWords(k.Want)
	case *kind.ExclusiveMinimum:
		return "must be more than " + ratWords(k.Want)
	case *kind.ExclusiveMaximum:
		return "must be less than " + ratWords(k.Want)
	case *kind.MultipleOf:
		return "must be a multiple of " + ratWords(k.Want)
	case *kind.MinLength:
		if k.Want == 1 {
			return "must not be empty"
		}
		return fmt.Sprintf("must be at least %s long", count(k.Want, "character"))
	case *kind.MaxLength:
		return fmt.Sprintf("must be at most %s long", count(k.Want, "character"))
	case *kind.MinItems:
		return fmt.Sprintf("must have at least %s", count(k.Want, "item"))
	case *kind.MaxItems:
		return fmt.Sprintf("must have at most %s", count(k.Want, "item"))
	case *kind.UniqueItems:
		return fmt.Sprintf("must not repeat an item (items %d and %d are the same)", k.Duplicates[0], k.Duplicates[1])
	case *kind.MinProperties:
		return fmt.Sprintf("must have at least %s", count(k.Want, "field"))
	case *kind.MaxProperties:
		return fmt.Sprintf("must have at most %s", count(k.Want, "field"))
	case *kind.Pattern:
		return patternWords(s)
	case *kind.Format:
		return formatWords(k.Want)
	case *kind.FalseSchema:
		return "is not allowed here"
	}
	return k.LocalizedString(printer)
}

// patternWords explains a pattern by what a matching value looks like.
func patternWords(s *schema.Schema) string {
	if s != nil {
		for _, ex := range s.Examples {
			if str, ok := ex.(string); ok {
				return "must look like " + str
			}
		}
		if s.Description != "" {
			return "is not in the expected form: " + s.Description
		}
		if s.Pattern != "" {
			return "is not in the expected form (pattern " + s.Pattern + ")"
		}
	}
	return "is not in the expected form"
}

var formatNames = map[string]string{
	"email":     "an email address",
	"date":      "a date such as 2026-12-31",
	"date-time": "a date and time such as 2026-12-31T23:59:00Z",
	"time":      "a time such as 23:59:00Z",
	"uri":       "an absolute URL such as https://example.com/",
	"uuid":      "a UUID",
	"ipv4":      "an IPv4 address",
	"ipv6":      "an IPv6 address",
	"hostname":  "a host name",
}

func formatWords(format string) string {
	if w, ok := formatNames[format]; ok {
		return "must be " + w
	}
	return "must be a valid " + format
}

var typeNames = map[string]string{
	"integer": "a whole number",
	"number":  "a number",
	"string":  "text",
	"boolean": "true or false",
	"array":   "a list",
	"object":  "an object",
	"null":    "null",
}

func typeWords(want []string) string {
	words := make([]string, len(want))
	for i, t := range want {
		if w, ok := typeNames[t]; ok {
			words[i] = w
		} else {
			words[i] = t
		}
	}
	return strings.Join(words, " or ")
}

func listWords(vals []any) string {
	words := make([]string, len(vals))
	for i, v := range vals {
		words[i] = valueWords(v)
	}
	return strings.Join(words, ", ")
}

// valueWords writes a schema value as it would be typed: text bare,
// everything else as JSON would write it.
func valueWords(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case nil:
		return "null"
	}
	return fmt.Sprint(v)
}

func ratWords(r *big.Rat) string {
	if r == nil {
		return "?"
	}
	if r.IsInt() {
		return r.Num().String()
	}
	f, _ := r.Float64()
	return strconv.FormatFloat(f, 'f', -1, 64)
}

func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// subschema finds the schema of the value at an instance location, by
// following properties, items and additional properties from the root.
// It returns nil where the schema does not say.
func subschema(root *schema.Schema, loc []string) *schema.Schema {
	s := root
	for _, part := range loc {
		if s == nil {
			return nil
		}
		switch {
		case s.Items != nil:
			s = s.Items
		default:
			var next *schema.Schema
			for _, p := range s.Properties {
				if p.Name == part {
					next = p.Schema
					break
				}
			}
			if next == nil && s.AdditionalProperties != nil && !s.AdditionalProperties.False {
				next = s.AdditionalProperties
			}
			s = next
		}
	}
	return s
}
