package htmlform

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/affordances-go/affordances/internal/mdtext"
	"github.com/affordances-go/affordances/internal/schema"
	"github.com/affordances-go/affordances/internal/words"
)

// Field is one field of a call's input as the person who approves it
// reads it (site.InputField says how each is written).
type Field struct {
	Label, Value string
}

// Fields lists the fields of a call's input v (the generic JSON the
// schema validated) in the schema's order, then any the schema does not
// name, in name order; nil for none.
func Fields(s *schema.Schema, v any) []Field {
	var out []Field
	appendFields(&out, "", s, v)
	return out
}

func appendFields(out *[]Field, prefix string, s *schema.Schema, v any) {
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

func appendField(out *[]Field, prefix, name string, s *schema.Schema, v any) {
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
	if SecretField(name) {
		*out = append(*out, Field{label, "(hidden)"})
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
			*out = append(*out, Field{label, strings.Join(scalars, ", ")})
		}
	default:
		*out = append(*out, Field{label, scalar(v)})
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
