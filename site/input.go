package site

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/affordances-go/affordances/internal/validate"
	"github.com/affordances-go/affordances/protocol"
)

// check validates a parsed input against the action's compiled schema and
// its Go field names, and returns every issue found.
func (a *action) check(v any) []protocol.Issue {
	var issues []protocol.Issue
	if err := a.validator.Validate(v); err != nil {
		var ve *jsonschema.ValidationError
		if !errors.As(err, &ve) {
			return []protocol.Issue{{Path: "", Message: "the input could not be validated", Keyword: "type"}}
		}
		issues = validate.Issues(ve, a.input, issues)
	}
	issues = a.cases.Check(v, "", issues)
	// Validation visits object members in map order: sort for a stable answer.
	slices.SortStableFunc(issues, func(x, y protocol.Issue) int {
		if c := strings.Compare(x.Path, y.Path); c != 0 {
			return c
		}
		return strings.Compare(x.Keyword, y.Keyword)
	})
	return issues
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
		b, merr := json.Marshal(validate.IntegralNumbers(v))
		if merr == nil {
			if in2, err2 := a.decode(b); err2 == nil {
				return in2, nil
			}
		}
	}
	return in, err
}
