package validate

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/url"
	"reflect"
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/affordances-go/affordances/internal/schema"
	"github.com/affordances-go/affordances/protocol"
)

// Input is an action's input schema compiled once, at registration: what
// every call's input is checked against, with the Go field names of the
// handler's input type for case-sensitive decoding.
type Input struct {
	schema    *schema.Schema
	validator *jsonschema.Schema
	quick     *flat // nil unless the schema is flat
	cases     *CaseTree
}

// NewInput compiles the input schema raw (s is the same schema, parsed)
// for the handler's input type t. name identifies it in errors.
func NewInput(name string, raw []byte, s *schema.Schema, t reflect.Type) (*Input, error) {
	v, err := Compile(name, raw)
	if err != nil {
		return nil, err
	}
	return &Input{schema: s, validator: v, quick: newFlat(raw, v), cases: NewCaseTree(t)}, nil
}

// Check validates a parsed input against the schema and the Go field
// names, and returns every issue found, sorted by path and keyword.
func (in *Input) Check(v any) []protocol.Issue {
	var issues []protocol.Issue
	// The quick check answers the common valid input; anything else gets
	// the full validator and its issues.
	if in.quick == nil || !in.quick.valid(v) {
		if err := in.validator.Validate(v); err != nil {
			var ve *jsonschema.ValidationError
			if !errors.As(err, &ve) {
				return []protocol.Issue{{Path: "", Message: "the input could not be validated", Keyword: "type"}}
			}
			issues = Issues(ve, in.schema, issues)
		}
	}
	issues = in.cases.Check(v, "", issues)
	// Validation visits object members in map order: sort for a stable answer.
	slices.SortStableFunc(issues, func(x, y protocol.Issue) int {
		if c := strings.Compare(x.Path, y.Path); c != 0 {
			return c
		}
		return strings.Compare(x.Keyword, y.Keyword)
	})
	return issues
}

// Compile compiles one JSON Schema 2020-12 document, with format
// assertions on, so that "format": "email" is checked rather than noted.
func Compile(name string, raw []byte) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	loc := "mem:///" + url.PathEscape(name) + ".json"
	if err := c.AddResource(loc, doc); err != nil {
		return nil, err
	}
	return c.Compile(loc)
}

// Decode decodes a validated input into the handler's type with decode,
// from its raw JSON when the door kept it, else from the parsed value v.
//
// JSON Schema counts 1.0 and 1e0 as integers, and encoding/json does not
// decode them into a Go int: when the raw decode fails on a number, v is
// written again with every integral number in integer form, and decoded
// from that. The common case costs nothing more.
func Decode(raw []byte, v any, decode func([]byte) (any, error)) (any, error) {
	if raw == nil {
		var err error
		if raw, err = json.Marshal(v); err != nil {
			return nil, err
		}
	}
	in, err := decode(raw)
	var te *json.UnmarshalTypeError
	if err != nil && errors.As(err, &te) && strings.HasPrefix(te.Value, "number") {
		b, merr := json.Marshal(IntegralNumbers(v))
		if merr == nil {
			if in2, err2 := decode(b); err2 == nil {
				return in2, nil
			}
		}
	}
	return in, err
}

// Compact returns b without insignificant space, or b itself when it is
// not JSON.
func Compact(b []byte) json.RawMessage {
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		return b
	}
	return buf.Bytes()
}
