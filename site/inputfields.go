package site

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/affordances-go/affordances/internal/htmlform"
	"github.com/affordances-go/affordances/internal/mdtext"
	"github.com/affordances-go/affordances/internal/schema"
	"github.com/affordances-go/affordances/internal/words"
)

// InputField is one field of a call's input as the person who approves
// it reads it: every field the call carries, beside the author's summary,
// so that what the summary leaves out is seen too. Label comes from the
// input schema (its title, else its description, else the field's name
// in words), nested fields read "Address › City"; Value is the value as
// text, with look-alike quotes and invisible characters written as code
// points (safetext.ShowAsData), "yes" or "no" for a boolean, and a secret
// (a password, a token) hidden.
type InputField struct {
	Label string `json:"label"`
	Value string `json:"value"`
}

// inputFields lists the fields of a call's input v (the generic JSON the
// schema validated) in the schema's order, then any the schema does not
// name, in name order.
func inputFields(s *schema.Schema, v any) []InputField {
	var out []InputField
	appendFields(&out, "", s, v)
	return out
}

func appendFields(out *[]InputField, prefix string, s *schema.Schema, v any) {
	obj, ok := v.(map[string]any)
	if !ok {
		return
	}
	seen := map[string]bool{}
	var props []schema.Property
	if s != nil {
		props = s.Properties
	}
	for _, p := range props {
		if val, present := obj[p.Name]; present {
			seen[p.Name] = true
			appendField(out, prefix, p.Name, p.Schema, val)
		}
	}
	var rest []string
	for k := range obj {
		if !seen[k] {
			rest = append(rest, k)
		}
	}
	sort.Strings(rest)
	for _, k := range rest {
		appendField(out, prefix, k, nil, obj[k])
	}
}

func appendField(out *[]InputField, prefix, name string, s *schema.Schema, v any) {
	label := words.FromIdentifier(name)
	if s != nil && s.Title != "" {
		label = s.Title
	} else if s != nil && s.Description != "" {
		label = s.Description
	}
	if label != "" {
		label = mdtext.Visible(strings.ToUpper(label[:1]) + label[1:])
	}
	if prefix != "" {
		label = prefix + " › " + label
	}
	if htmlform.SecretField(name) {
		*out = append(*out, InputField{label, "(hidden)"})
		return
	}
	switch x := v.(type) {
	case map[string]any:
		appendFields(out, label, s, x)
	case []any:
		var item *schema.Schema
		if s != nil {
			item = s.Items
		}
		scalars := make([]string, 0, len(x))
		for i, e := range x {
			if m, isObj := e.(map[string]any); isObj {
				appendFields(out, fmt.Sprintf("%s %d", label, i+1), item, m)
				continue
			}
			scalars = append(scalars, scalar(e))
		}
		if len(scalars) > 0 || len(x) == 0 {
			*out = append(*out, InputField{label, strings.Join(scalars, ", ")})
		}
	default:
		*out = append(*out, InputField{label, scalar(v)})
	}
}

// scalar writes a JSON scalar for a person.
func scalar(v any) string {
	switch x := v.(type) {
	case nil:
		return "(none)"
	case bool:
		if x {
			return "yes"
		}
		return "no"
	case string:
		return mdtext.Visible(x)
	case json.Number:
		return x.String()
	case float64:
		return fmt.Sprint(x)
	}
	b, _ := json.Marshal(v)
	return mdtext.Visible(string(b))
}
