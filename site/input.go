package site

import (
	"encoding/json"
	"errors"
	"math/big"
	"reflect"
	"slices"
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

// check validates a parsed input against the action's compiled schema and
// its Go field names, and returns every issue found.
func (a *action) check(v any) []protocol.Issue {
	var issues []protocol.Issue
	if err := a.validator.Validate(v); err != nil {
		var ve *jsonschema.ValidationError
		if !errors.As(err, &ve) {
			return []protocol.Issue{{Path: "", Message: "the input could not be validated", Keyword: "type"}}
		}
		issues = schemaIssues(ve, a.input, issues)
	}
	issues = a.cases.check(v, "", issues)
	// Validation visits object members in map order: sort for a stable answer.
	slices.SortStableFunc(issues, func(x, y protocol.Issue) int {
		if c := strings.Compare(x.Path, y.Path); c != 0 {
			return c
		}
		return strings.Compare(x.Keyword, y.Keyword)
	})
	return issues
}

// schemaIssues flattens a validation error into one issue per failed
// keyword. A missing or unknown property gets an issue of its own, whose
// path names the property, so that a form can point at the field.
//
// Messages are plain words ([plainMessage]); root, the action's input
// schema, explains patterns and lists the fields an object takes.
func schemaIssues(ve *jsonschema.ValidationError, root *schema.Schema, out []protocol.Issue) []protocol.Issue {
	if len(ve.Causes) > 0 {
		for _, c := range ve.Causes {
			out = schemaIssues(c, root, out)
		}
		return out
	}
	at := pointer(ve.InstanceLocation)
	s := subschema(root, ve.InstanceLocation)
	switch k := ve.ErrorKind.(type) {
	case *kind.Required:
		for _, m := range k.Missing {
			out = append(out, protocol.Issue{Path: at + "/" + escapePointer(m), Message: "required", Keyword: "required"})
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
			out = append(out, protocol.Issue{Path: at + "/" + escapePointer(p), Message: msg, Keyword: "additionalProperties"})
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
		b.WriteString(escapePointer(p))
	}
	return b.String()
}

func escapePointer(s string) string {
	if !strings.ContainsAny(s, "~/") {
		return s
	}
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
}

// decodeInput decodes a validated input into the handler's type, from its
// raw JSON when the transport kept it, else from the parsed value.
//
// JSON Schema counts 1.0 and 1e0 as integers, and encoding/json does not
// decode them into a Go int: when the raw decode fails on a number, the
// parsed value is written again with every integral number in integer
// form, and decoded from that. The common case costs nothing more.
func (a *action) decodeInput(raw []byte, v any) (any, error) {
	if raw == nil {
		var err error
		if raw, err = json.Marshal(v); err != nil {
			return nil, err
		}
	}
	in, err := a.decode(raw)
	var te *json.UnmarshalTypeError
	if err != nil && errors.As(err, &te) && strings.HasPrefix(te.Value, "number") {
		b, merr := json.Marshal(integralNumbers(v))
		if merr == nil {
			if in2, err2 := a.decode(b); err2 == nil {
				return in2, nil
			}
		}
	}
	return in, err
}

// integralNumbers returns v with every json.Number whose value is a whole
// number written as an integer ("1.0", "1e0" and "10E-1" become "1").
func integralNumbers(v any) any {
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
			out[k] = integralNumbers(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = integralNumbers(e)
		}
		return out
	}
	return v
}

// decodeIssues describes a decoding error that the schema did not catch,
// such as a number too large for an int field.
func decodeIssues(err error) []protocol.Issue {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		path := ""
		if te.Field != "" {
			path = "/" + strings.ReplaceAll(escapePointer(te.Field), ".", "/")
		}
		return []protocol.Issue{{Path: path, Message: "cannot be read as " + te.Type.String(), Keyword: "type"}}
	}
	return []protocol.Issue{{Path: "", Message: "the input could not be decoded", Keyword: "type"}}
}

// caseTree holds the JSON names of a Go type's struct fields, so that a
// key matching a field only when case is ignored can be rejected:
// encoding/json would silently decode it into the field. It is built once
// at registration.
type caseTree struct {
	fields map[string]string    // lower-cased name -> exact name
	child  map[string]*caseTree // exact name -> the field's tree
	elem   *caseTree            // the element tree of a slice or map
}

func newCaseTree(t reflect.Type) *caseTree {
	return buildCaseTree(t, map[reflect.Type]bool{})
}

func buildCaseTree(t reflect.Type, seen map[reflect.Type]bool) *caseTree {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if seen[t] {
		return nil
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array, reflect.Map:
		if e := buildCaseTree(t.Elem(), seen); e != nil {
			return &caseTree{elem: e}
		}
		return nil
	case reflect.Struct:
		fs, err := schema.StructFields(t)
		if err != nil || len(fs) == 0 {
			return nil
		}
		seen[t] = true
		defer delete(seen, t)
		ct := &caseTree{fields: map[string]string{}, child: map[string]*caseTree{}}
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
func (ct *caseTree) check(v any, at string, out []protocol.Issue) []protocol.Issue {
	if ct == nil {
		return out
	}
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if ct.elem != nil {
				out = ct.elem.check(x, at+"/"+escapePointer(k), out)
				continue
			}
			exact, ok := ct.fields[strings.ToLower(k)]
			if ok && exact != k {
				out = append(out, protocol.Issue{Path: at + "/" + escapePointer(k),
					Message: "property names are case-sensitive: did you mean " + exact + "?", Keyword: "additionalProperties"})
				continue
			}
			out = ct.child[k].check(x, at+"/"+escapePointer(k), out)
		}
	case []any:
		if ct.elem != nil {
			for i, x := range v {
				out = ct.elem.check(x, at+"/"+strconv.Itoa(i), out)
			}
		}
	}
	return out
}
