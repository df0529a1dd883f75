// Package validate turns JSON Schema validation errors into the
// protocol's issues, in plain words, and holds the checks of an input that
// the schema cannot make (case-variant member names). Package site runs it
// at its validation step.
package validate

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"reflect"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/affordances-go/affordances/internal/schema"
	"github.com/affordances-go/affordances/protocol"
)

var printer = message.NewPrinter(language.English)

// Issues flattens a validation error into one issue per failed
// keyword. A missing or unknown property gets an issue of its own, whose
// path names the property, so that a form can point at the field.
//
// Messages are plain words ([plainMessage]); root, the action's input
// schema, explains patterns and lists the fields an object takes.
func Issues(ve *jsonschema.ValidationError, root *schema.Schema, out []protocol.Issue) []protocol.Issue {
	if len(ve.Causes) > 0 {
		for _, c := range ve.Causes {
			out = Issues(c, root, out)
		}
		return out
	}
	at := pointer(ve.InstanceLocation)
	s := subschema(root, ve.InstanceLocation)
	switch k := ve.ErrorKind.(type) {
	case *kind.Required:
		for _, m := range k.Missing {
			out = append(out, protocol.Issue{Path: at + "/" + EscapePointer(m), Message: "required", Keyword: "required"})
		}
		return out
	case *kind.AdditionalProperties:
		msg := "is not a field of this input"
		if s != nil && len(s.Properties) > 0 {
			names := make([]string, len(s.Properties))
			for i, p := range s.Properties {
				names[i] = p.Name
			}
			msg = "is not a field here; the fields are " + strings.Join(names, ", ")
		}
		for _, p := range k.Properties {
			out = append(out, protocol.Issue{Path: at + "/" + EscapePointer(p), Message: msg, Keyword: "additionalProperties"})
		}
		return out
	}
	kw := ""
	if path := ve.ErrorKind.KeywordPath(); len(path) > 0 {
		kw = path[len(path)-1]
	}
	return append(out, protocol.Issue{Path: at, Message: plainMessage(ve.ErrorKind, s), Keyword: kw})
}

// pointer writes an instance location as a JSON Pointer.
func pointer(loc []string) string {
	var b strings.Builder
	for _, p := range loc {
		b.WriteByte('/')
		b.WriteString(EscapePointer(p))
	}
	return b.String()
}

func EscapePointer(s string) string {
	if !strings.ContainsAny(s, "~/") {
		return s
	}
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
}

// IntegralNumbers returns v with every json.Number whose value is a whole
// number written as an integer ("1.0", "1e0" and "10E-1" become "1").
func IntegralNumbers(v any) any {
	switch x := v.(type) {
	case json.Number:
		s := string(x)
		if !strings.ContainsAny(s, ".eE") {
			return x
		}
		r, ok := new(big.Rat).SetString(s)
		if ok && r.IsInt() {
			return json.Number(r.Num().String())
		}
		return x
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = IntegralNumbers(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = IntegralNumbers(e)
		}
		return out
	}
	return v
}

// DecodeIssues describes a decoding error that the schema did not catch,
// such as a number too large for an int field.
func DecodeIssues(err error) []protocol.Issue {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		path := ""
		if te.Field != "" {
			path = "/" + strings.ReplaceAll(EscapePointer(te.Field), ".", "/")
		}
		return []protocol.Issue{{Path: path, Message: "cannot be read as " + te.Type.String(), Keyword: "type"}}
	}
	return []protocol.Issue{{Path: "", Message: "the input could not be decoded", Keyword: "type"}}
}

// CaseTree holds the JSON names of a Go type's struct fields, so that a
// key matching a field only when case is ignored can be rejected:
// encoding/json would silently decode it into the field. It is built once
// at registration.
type CaseTree struct {
	fields map[string]string    // lower-cased name -> exact name
	child  map[string]*CaseTree // exact name -> the field's tree
	elem   *CaseTree            // the element tree of a slice or map
}

func NewCaseTree(t reflect.Type) *CaseTree {
	return buildCaseTree(t, map[reflect.Type]bool{})
}

func buildCaseTree(t reflect.Type, seen map[reflect.Type]bool) *CaseTree {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if seen[t] {
		return nil
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array, reflect.Map:
		if e := buildCaseTree(t.Elem(), seen); e != nil {
			return &CaseTree{elem: e}
		}
		return nil
	case reflect.Struct:
		fs, err := schema.StructFields(t)
		if err != nil || len(fs) == 0 {
			return nil
		}
		seen[t] = true
		defer delete(seen, t)
		ct := &CaseTree{fields: map[string]string{}, child: map[string]*CaseTree{}}
		for _, f := range fs {
			ct.fields[strings.ToLower(f.Name)] = f.Name
			if sub := buildCaseTree(f.Go.Type, seen); sub != nil {
				ct.child[f.Name] = sub
			}
		}
		return ct
	}
	return nil
}

// check adds an issue for every key of v that names a field of the tree
// only when case is ignored.
func (ct *CaseTree) Check(v any, at string, out []protocol.Issue) []protocol.Issue {
	if ct == nil {
		return out
	}
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if ct.elem != nil {
				out = ct.elem.Check(x, at+"/"+EscapePointer(k), out)
				continue
			}
			exact, ok := ct.fields[strings.ToLower(k)]
			if ok && exact != k {
				out = append(out, protocol.Issue{Path: at + "/" + EscapePointer(k),
					Message: "property names are case-sensitive: did you mean " + exact + "?", Keyword: "additionalProperties"})
				continue
			}
			out = ct.child[k].Check(x, at+"/"+EscapePointer(k), out)
		}
	case []any:
		if ct.elem != nil {
			for i, x := range v {
				out = ct.elem.Check(x, at+"/"+strconv.Itoa(i), out)
			}
		}
	}
	return out
}

// plainMessage writes a failed keyword as a short sentence a person and a
// model both read without knowing JSON Schema: "must be at least 1",
// "must be one of S, M, L", "must look like TEE-BLK-M". The issue's path
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
