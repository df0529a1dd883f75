package main

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/affordances-go/affordances/internal/schema"
)

// pairsToInput turns key=value and key:=JSON arguments into an input
// object. Values are converted by the type the schema gives the property,
// with the same rules as an HTML form's fields ([schema.FromText]): whole
// numbers, numbers, and booleans written true/false, on/off, yes/no or
// 1/0. An array takes a comma-separated list; an object is given as
// key:=JSON. Without a schema, values stay strings.
func pairsToInput(args []string, rawSchema json.RawMessage) (map[string]any, error) {
	var root schema.Schema
	if len(rawSchema) > 0 {
		json.Unmarshal(rawSchema, &root) // a schema we cannot read converts nothing
	}
	props := map[string]*schema.Schema{}
	for _, p := range root.Properties {
		props[p.Name] = p.Schema
	}
	out := map[string]any{}
	for _, a := range args {
		if k, v, ok := strings.Cut(a, ":="); ok && !strings.Contains(k, "=") {
			var x any
			dec := json.NewDecoder(strings.NewReader(v))
			dec.UseNumber()
			if err := dec.Decode(&x); err != nil {
				return nil, inputError(fmt.Sprintf("%s: %q is not JSON", k, v))
			}
			out[k] = x
			continue
		}
		k, v, ok := strings.Cut(a, "=")
		if !ok || k == "" {
			return nil, inputError(fmt.Sprintf("input %q is not key=value, key:=JSON or a JSON object", a))
		}
		x, err := convert(props[k], v)
		if err != nil {
			return nil, inputError(fmt.Sprintf("%s: %q %v", k, v, err))
		}
		out[k] = x
	}
	return out, nil
}

// convert turns one argument's text into the value its schema describes.
func convert(s *schema.Schema, v string) (any, error) {
	if s == nil {
		return v, nil
	}
	switch s.TypeName() {
	case "array":
		items := []any{}
		if v == "" {
			return items, nil
		}
		for _, part := range strings.Split(v, ",") {
			x, err := schema.FromText(s.Items, strings.TrimSpace(part))
			if err != nil {
				return nil, err
			}
			items = append(items, x)
		}
		return items, nil
	case "object":
		var x any
		if err := json.Unmarshal([]byte(v), &x); err != nil {
			return nil, fmt.Errorf("is not an object: give an object as key:=JSON")
		}
		return x, nil
	}
	return schema.FromText(s, v)
}

// inputError is an input the command line cannot turn into JSON; nothing
// was sent.
type inputError string

func (e inputError) Error() string { return string(e) }
