package main

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// propSchema is the part of a JSON Schema the converter reads.
type propSchema struct {
	Type       any                   `json:"type"`
	Items      *propSchema           `json:"items"`
	Properties map[string]propSchema `json:"properties"`
}

func (s *propSchema) typeName() string {
	if s == nil {
		return ""
	}
	switch t := s.Type.(type) {
	case string:
		return t
	case []any:
		for _, x := range t {
			if x, ok := x.(string); ok && x != "null" {
				return x
			}
		}
	}
	return ""
}

// pairsToInput turns key=value and key:=JSON arguments into an input
// object. Values are converted by the type the schema gives the property:
// integers and numbers are parsed, booleans read true/false/yes/no/1/0,
// arrays split at commas. Without a schema, values stay strings.
func pairsToInput(args []string, rawSchema json.RawMessage) (map[string]any, error) {
	var root propSchema
	if len(rawSchema) > 0 {
		json.Unmarshal(rawSchema, &root) // a schema we cannot read converts nothing
	}
	out := map[string]any{}
	for _, a := range args {
		if k, v, ok := strings.Cut(a, ":="); ok && !strings.Contains(k, "=") {
			var x any
			dec := json.NewDecoder(strings.NewReader(v))
			dec.UseNumber()
			if err := dec.Decode(&x); err != nil {
				return nil, usageError(fmt.Sprintf("%s: %q is not JSON", k, v))
			}
			out[k] = x
			continue
		}
		k, v, ok := strings.Cut(a, "=")
		if !ok || k == "" {
			return nil, usageError(fmt.Sprintf("input %q is not key=value, key:=JSON or a JSON object", a))
		}
		var prop *propSchema
		if p, found := root.Properties[k]; found {
			prop = &p
		}
		x, err := convert(prop, v)
		if err != nil {
			return nil, usageError(fmt.Sprintf("%s: %v", k, err))
		}
		out[k] = x
	}
	return out, nil
}

func convert(s *propSchema, v string) (any, error) {
	switch s.typeName() {
	case "integer":
		if _, err := strconv.ParseInt(v, 10, 64); err != nil {
			return nil, fmt.Errorf("%q is not a whole number", v)
		}
		return json.Number(v), nil
	case "number":
		if _, err := strconv.ParseFloat(v, 64); err != nil {
			return nil, fmt.Errorf("%q is not a number", v)
		}
		return json.Number(v), nil
	case "boolean":
		switch strings.ToLower(v) {
		case "true", "yes", "1", "on":
			return true, nil
		case "false", "no", "0", "off":
			return false, nil
		}
		return nil, fmt.Errorf("%q is not true or false", v)
	case "array":
		items := []any{}
		if v == "" {
			return items, nil
		}
		for _, part := range strings.Split(v, ",") {
			x, err := convert(s.Items, strings.TrimSpace(part))
			if err != nil {
				return nil, err
			}
			items = append(items, x)
		}
		return items, nil
	case "object":
		var x any
		if err := json.Unmarshal([]byte(v), &x); err != nil {
			return nil, fmt.Errorf("an object is given as key:=JSON")
		}
		return x, nil
	}
	return v, nil
}
