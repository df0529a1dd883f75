package htmlform

import (
	"slices"
	"strconv"
	"strings"

	"github.com/affordances-go/affordances/internal/schema"
	"github.com/affordances-go/affordances/internal/validate"
	"github.com/affordances-go/affordances/protocol"
)

// Decode converts form values to the JSON value the input schema
// describes, with [schema.FromText] for each value; arrays take every
// value of their field. A property that is an object takes the fields
// named after it with a dot, "address.city" for /address/city, at any
// depth; an optional object whose fields are all empty is absent. Fields
// the schema does not name are ignored, whether or not the action has
// inputs (forms carry other things, such as an application's CSRF token
// or a tracking parameter). An empty field of an optional property counts
// as absent, and an absent or empty boolean as false, as an unchecked
// checkbox sends nothing.
func Decode(s *schema.Schema, form map[string][]string) (any, []protocol.Issue) {
	out := map[string]any{}
	if s == nil {
		return out, nil
	}
	var issues []protocol.Issue
	formObject(s, form, "", "", out, &issues)
	return out, issues
}

// formObject fills out with the properties of object schema s, read from
// the form fields that start with prefix; at is their JSON Pointer.
func formObject(s *schema.Schema, form map[string][]string, prefix, at string, out map[string]any, issues *[]protocol.Issue) {
	for _, p := range s.Properties {
		field, path := prefix+p.Name, at+"/"+validate.EscapePointer(p.Name)
		vals := nonEmpty(form[field], p.Schema.TypeName() == "array")
		typ := p.Schema.TypeName()
		switch {
		case typ == "object" && len(p.Schema.Properties) > 0:
			sub := map[string]any{}
			formObject(p.Schema, form, field+".", path, sub, issues)
			if anyFilled(form, field+".") || slices.Contains(s.Required, p.Name) {
				out[p.Name] = sub
			}
		case typ == "boolean" && (len(vals) == 0 || vals[0] == ""):
			out[p.Name] = false
		case typ == "array":
			if _, present := form[field]; !present {
				continue
			}
			items := []any{}
			for i, v := range vals {
				x, err := schema.FromText(p.Schema.Items, v)
				if err != nil {
					*issues = append(*issues, protocol.Issue{Path: path + "/" + strconv.Itoa(i), Message: err.Error(), Keyword: "type"})
					continue
				}
				items = append(items, x)
			}
			out[p.Name] = items
		case len(vals) == 0 || (vals[0] == "" && !slices.Contains(s.Required, p.Name)):
			// absent
		default:
			x, err := schema.FromText(p.Schema, vals[0])
			if err != nil {
				*issues = append(*issues, protocol.Issue{Path: path, Message: err.Error(), Keyword: "type"})
				continue
			}
			out[p.Name] = x
		}
	}
}

// NamesField reports whether a form field name ("qty", "address.city")
// is a property of the input schema: only those are posted again.
func NamesField(s *schema.Schema, field string) bool {
	for _, part := range strings.Split(field, ".") {
		if s == nil {
			return false
		}
		var next *schema.Schema
		for _, p := range s.Properties {
			if p.Name == part {
				next = p.Schema
			}
		}
		s = next
	}
	return s != nil
}

// anyFilled reports whether a form has a non-empty field under prefix.
func anyFilled(form map[string][]string, prefix string) bool {
	for k, vs := range form {
		if strings.HasPrefix(k, prefix) {
			for _, v := range vs {
				if v != "" && v != "false" {
					return true
				}
			}
		}
	}
	return false
}

// nonEmpty drops the empty values of an array's field: a form with an
// empty text box in a list means one item fewer, not an empty string.
func nonEmpty(vals []string, array bool) []string {
	if !array {
		return vals
	}
	out := vals[:0:0]
	for _, v := range vals {
		if v != "" {
			out = append(out, v)
		}
	}
	return out
}
