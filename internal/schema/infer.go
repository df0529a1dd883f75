package schema

import (
	"encoding"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Options tune [Infer].
type Options struct {
	// Strict closes every object schema inferred from a struct with
	// additionalProperties: false, so unknown property names are rejected.
	// Action inputs are strict; wire documents are not, because the
	// protocol lets later versions add fields.
	Strict bool
	// Types replaces the inferred schema of the given types. The schema
	// is copied before use.
	Types map[reflect.Type]*Schema
	// Describe, when set, supplies a description for a struct field that
	// has no description tag, such as its Go doc comment.
	Describe func(owner reflect.Type, field string) string
	// SameShape lists types that implement json.Marshaler only to tidy
	// their output (such as writing nil lists as []) and keep the shape
	// of their fields. Other marshalers are described by the empty schema,
	// since nothing is known of what they write.
	SameShape []reflect.Type
	// Adjust, when set, is called for every struct field after its schema
	// was inferred, to add what tags cannot say.
	Adjust func(owner reflect.Type, field string, s *Schema)
}

var (
	timeType       = reflect.TypeFor[time.Time]()
	rawMessageType = reflect.TypeFor[json.RawMessage]()
	numberType     = reflect.TypeFor[json.Number]()
	bytesType      = reflect.TypeFor[[]byte]()
	marshalerType  = reflect.TypeFor[json.Marshaler]()
	textMarshType  = reflect.TypeFor[encoding.TextMarshaler]()
)

// Infer returns the JSON Schema of the values of type t as encoding/json
// reads and writes them. It fails on types JSON cannot carry (channels,
// functions, complex numbers), on recursive types, and on tags that do not
// fit their field, naming the field.
func Infer(t reflect.Type, opts *Options) (*Schema, error) {
	if opts == nil {
		opts = &Options{}
	}
	in := inferrer{opts: opts, stack: map[reflect.Type]bool{}}
	return in.infer(t)
}

type inferrer struct {
	opts  *Options
	stack map[reflect.Type]bool
}

func (in *inferrer) infer(t reflect.Type) (*Schema, error) {
	if s, ok := in.opts.Types[t]; ok {
		c := *s
		return &c, nil
	}
	switch t {
	case timeType:
		return &Schema{Type: "string", Format: "date-time"}, nil
	case rawMessageType:
		return &Schema{}, nil
	case numberType:
		return &Schema{Type: "number"}, nil
	case bytesType:
		return &Schema{Type: "string", ContentEncoding: "base64"}, nil
	}
	if t.Kind() != reflect.Pointer && t.Kind() != reflect.Interface && !slices.Contains(in.opts.SameShape, t) {
		if t.Implements(marshalerType) || reflect.PointerTo(t).Implements(marshalerType) {
			return &Schema{}, nil // it writes its own JSON: nothing to say
		}
		if t.Implements(textMarshType) || reflect.PointerTo(t).Implements(textMarshType) {
			return &Schema{Type: "string"}, nil
		}
	}
	switch t.Kind() {
	case reflect.Bool:
		return &Schema{Type: "boolean"}, nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		s := &Schema{Type: "integer"}
		if bits := t.Bits(); bits < 53 {
			lo, hi := -math.Pow(2, float64(bits-1)), math.Pow(2, float64(bits-1))-1
			s.Minimum, s.Maximum = &lo, &hi
		}
		return s, nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		zero := 0.0
		s := &Schema{Type: "integer", Minimum: &zero}
		if bits := t.Bits(); bits < 53 {
			hi := math.Pow(2, float64(bits)) - 1
			s.Maximum = &hi
		}
		return s, nil
	case reflect.Float32, reflect.Float64:
		return &Schema{Type: "number"}, nil
	case reflect.String:
		return &Schema{Type: "string"}, nil
	case reflect.Interface:
		return &Schema{}, nil
	case reflect.Pointer:
		return in.infer(t.Elem())
	case reflect.Slice, reflect.Array:
		items, err := in.infer(t.Elem())
		if err != nil {
			return nil, err
		}
		s := &Schema{Type: "array", Items: items}
		if t.Kind() == reflect.Array {
			n := t.Len()
			s.MinItems, s.MaxItems = &n, &n
		}
		return s, nil
	case reflect.Map:
		switch t.Key().Kind() {
		case reflect.String, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		default:
			if !t.Key().Implements(textMarshType) {
				return nil, fmt.Errorf("schema: map key type %s cannot be a JSON object key", t.Key())
			}
		}
		s := &Schema{Type: "object"}
		if t.Elem().Kind() != reflect.Interface {
			v, err := in.infer(t.Elem())
			if err != nil {
				return nil, err
			}
			s.AdditionalProperties = v
		}
		return s, nil
	case reflect.Struct:
		return in.object(t)
	}
	return nil, fmt.Errorf("schema: type %s cannot be represented in JSON", t)
}

func (in *inferrer) object(t reflect.Type) (*Schema, error) {
	if in.stack[t] {
		return nil, fmt.Errorf("schema: type %s is recursive; give its schema explicitly", t)
	}
	in.stack[t] = true
	defer delete(in.stack, t)

	fields, err := StructFields(t)
	if err != nil {
		return nil, err
	}
	s := &Schema{Type: "object", Properties: Properties{}}
	for _, f := range fields {
		fs, err := in.infer(f.Go.Type)
		if err != nil {
			return nil, fmt.Errorf("%s.%s: %w", f.Owner, f.Go.Name, err)
		}
		if f.AsString {
			fs = &Schema{Type: "string"}
		}
		if err := applyTags(fs, f.Go); err != nil {
			return nil, fmt.Errorf("schema: %s.%s: %w", f.Owner, f.Go.Name, err)
		}
		if fs.Description == "" && in.opts.Describe != nil {
			fs.Description = in.opts.Describe(f.Owner, f.Go.Name)
		}
		if in.opts.Adjust != nil {
			in.opts.Adjust(f.Owner, f.Go.Name, fs)
		}
		s.Properties = append(s.Properties, Property{Name: f.Name, Schema: fs})
		if f.Required {
			s.Required = append(s.Required, f.Name)
		}
	}
	if in.opts.Strict {
		s.AdditionalProperties = &Schema{False: true}
	}
	return s, nil
}

// applyTags reads the constraint tags of field f into s, checking that each
// fits the field's type.
func applyTags(s *Schema, f reflect.StructField) error {
	typ := s.TypeName()
	numeric := typ == "integer" || typ == "number"
	parse := func(key string, v string) (any, error) { return parseValue(typ, key, v) }
	for _, key := range []string{"title", "description", "format", "pattern", "minimum", "maximum",
		"minLength", "maxLength", "minItems", "maxItems", "enum", "default", "example", "autocomplete"} {
		v, ok := f.Tag.Lookup(key)
		if !ok {
			continue
		}
		switch key {
		case "title":
			s.Title = v
		case "description":
			s.Description = v
		case "format":
			s.Format = v
		case "pattern":
			if typ != "string" {
				return fmt.Errorf("pattern applies to strings, not %s", orAny(typ))
			}
			if _, err := regexp.Compile(v); err != nil {
				return fmt.Errorf("pattern %q: %w", v, err)
			}
			s.Pattern = v
		case "minimum", "maximum":
			if !numeric {
				return fmt.Errorf("%s applies to numbers, not %s", key, orAny(typ))
			}
			n, err := strconv.ParseFloat(v, 64)
			if err != nil || math.IsInf(n, 0) || math.IsNaN(n) {
				return fmt.Errorf("%s %q is not a number", key, v)
			}
			if typ == "integer" && n != math.Trunc(n) {
				return fmt.Errorf("%s %q is not an integer", key, v)
			}
			if key == "minimum" {
				s.Minimum = &n
			} else {
				s.Maximum = &n
			}
		case "minLength", "maxLength", "minItems", "maxItems":
			want := "string"
			if key == "minItems" || key == "maxItems" {
				want = "array"
			}
			if typ != want {
				return fmt.Errorf("%s applies to %ss, not %s", key, want, orAny(typ))
			}
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 {
				return fmt.Errorf("%s %q is not a count", key, v)
			}
			switch key {
			case "minLength":
				s.MinLength = &n
			case "maxLength":
				s.MaxLength = &n
			case "minItems":
				s.MinItems = &n
			case "maxItems":
				s.MaxItems = &n
			}
		case "enum":
			target := s
			if typ == "array" && s.Items != nil {
				target = s.Items // an enum on a list constrains its items
			}
			target.Enum = nil
			for _, part := range strings.Split(v, ",") {
				x, err := parseValue(target.TypeName(), key, part)
				if err != nil {
					return err
				}
				target.Enum = append(target.Enum, x)
			}
		case "default":
			x, err := parse(key, v)
			if err != nil {
				return err
			}
			s.Default = x
		case "example":
			x, err := parse(key, v)
			if err != nil {
				return err
			}
			s.Examples = []any{x}
		case "autocomplete":
			if !autofillTokens.MatchString(v) {
				return fmt.Errorf("autocomplete %q is not autofill tokens such as new-password", v)
			}
			s.Autocomplete = v
		}
	}
	if len(s.Examples) == 1 && s.Pattern != "" {
		if ex, ok := s.Examples[0].(string); ok && !regexp.MustCompile(s.Pattern).MatchString(ex) {
			return fmt.Errorf("example %q does not match pattern %q", ex, s.Pattern)
		}
	}
	if s.Minimum != nil && s.Maximum != nil && *s.Minimum > *s.Maximum {
		return fmt.Errorf("minimum %v is above maximum %v", *s.Minimum, *s.Maximum)
	}
	return nil
}

// autofillTokens are what an autocomplete tag may hold: HTML's autofill
// tokens, lower-case words with hyphens, separated by single spaces.
var autofillTokens = regexp.MustCompile(`^[a-z0-9-]+( [a-z0-9-]+)*$`)

// parseValue reads a tag value as a JSON value of the schema type typ.
func parseValue(typ, key, v string) (any, error) {
	switch typ {
	case "string":
		return v, nil
	case "integer":
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%s value %q is not an integer", key, v)
		}
		return n, nil
	case "number":
		n, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return nil, fmt.Errorf("%s value %q is not a number", key, v)
		}
		return n, nil
	case "boolean":
		b, err := strconv.ParseBool(v)
		if err != nil {
			return nil, fmt.Errorf("%s value %q is not a boolean", key, v)
		}
		return b, nil
	}
	var x any
	if err := json.Unmarshal([]byte(v), &x); err != nil {
		return nil, fmt.Errorf("%s value %q for a %s must be JSON", key, v, orAny(typ))
	}
	return x, nil
}

func orAny(typ string) string {
	if typ == "" {
		return "an untyped value"
	}
	return typ
}
