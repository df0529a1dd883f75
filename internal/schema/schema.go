package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Draft is the meta-schema URI of JSON Schema 2020-12.
const Draft = "https://json-schema.org/draft/2020-12/schema"

// Schema is one JSON Schema document or subschema. Its fields are the
// keywords this package emits, in the order they are written, so generated
// files are stable and read top-down.
type Schema struct {
	Schema               string     `json:"$schema,omitempty"`
	ID                   string     `json:"$id,omitempty"`
	Title                string     `json:"title,omitempty"`
	Description          string     `json:"description,omitempty"`
	Type                 any        `json:"type,omitempty"` // a string, or a list of strings
	Const                any        `json:"const,omitempty"`
	Enum                 []any      `json:"enum,omitempty"`
	Format               string     `json:"format,omitempty"`
	ContentEncoding      string     `json:"contentEncoding,omitempty"`
	Pattern              string     `json:"pattern,omitempty"`
	MinLength            *int       `json:"minLength,omitempty"`
	MaxLength            *int       `json:"maxLength,omitempty"`
	Minimum              *float64   `json:"minimum,omitempty"`
	Maximum              *float64   `json:"maximum,omitempty"`
	Items                *Schema    `json:"items,omitempty"`
	MinItems             *int       `json:"minItems,omitempty"`
	MaxItems             *int       `json:"maxItems,omitempty"`
	Properties           Properties `json:"properties,omitempty"`
	Required             []string   `json:"required,omitempty"`
	AdditionalProperties *Schema    `json:"additionalProperties,omitempty"`
	Default              any        `json:"default,omitempty"`
	Examples             []any      `json:"examples,omitempty"`

	// False makes the schema the boolean schema false, which nothing
	// satisfies; it is how additionalProperties forbids unknown names.
	False bool `json:"-"`
	// Autocomplete is the autofill hint of the person's form field for
	// this property (an autocomplete tag, such as "new-password"): for the
	// browser only, never on the wire.
	Autocomplete string `json:"-"`
}

// MarshalJSON writes the boolean schema false for a Schema with False set,
// and the keywords otherwise.
func (s *Schema) MarshalJSON() ([]byte, error) {
	if s.False {
		return []byte("false"), nil
	}
	type plain Schema
	return json.Marshal((*plain)(s))
}

// Property is one named property of an object schema.
type Property struct {
	Name   string
	Schema *Schema
}

// Properties keeps an object's properties in the order of the Go struct's
// fields, which a map would lose.
type Properties []Property

// MarshalJSON writes the properties as one JSON object, in order.
func (ps Properties) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, p := range ps {
		if i > 0 {
			b.WriteByte(',')
		}
		name, err := json.Marshal(p.Name)
		if err != nil {
			return nil, err
		}
		b.Write(name)
		b.WriteByte(':')
		v, err := json.Marshal(p.Schema)
		if err != nil {
			return nil, err
		}
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// TypeName returns the schema's single type name ("object", "integer", …),
// or "" when the schema has no type or several. A type that may also be
// null, such as ["integer", "null"], names the other type.
func (s *Schema) TypeName() string {
	switch t := s.Type.(type) {
	case string:
		return t
	case []any:
		name := ""
		for _, x := range t {
			x, ok := x.(string)
			if !ok || (x != "null" && name != "") {
				return ""
			}
			if x != "null" {
				name = x
			}
		}
		return name
	}
	return ""
}

// UnmarshalJSON reads a schema document, including the boolean schemas
// true (an empty Schema) and false.
func (s *Schema) UnmarshalJSON(b []byte) error {
	switch string(bytes.TrimSpace(b)) {
	case "true":
		*s = Schema{}
		return nil
	case "false":
		*s = Schema{False: true}
		return nil
	}
	type plain Schema
	return json.Unmarshal(b, (*plain)(s))
}

// UnmarshalJSON reads an object of schemas, keeping the order of its keys.
func (ps *Properties) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return fmt.Errorf("schema: properties must be an object")
	}
	*ps = (*ps)[:0]
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		var s Schema
		if err := dec.Decode(&s); err != nil {
			return err
		}
		*ps = append(*ps, Property{Name: t.(string), Schema: &s})
	}
	return nil
}
