package schema

import (
	"fmt"
	"reflect"
	"strings"
)

// Field is one JSON property of a Go struct, as encoding/json sees it.
type Field struct {
	// Name is the JSON property name.
	Name string
	// Go is the struct field, with the index path into the outer struct
	// when it was promoted from an embedded struct.
	Go reflect.StructField
	// Owner is the struct type that declares the field.
	Owner reflect.Type
	// Required reports whether the property must be present: the json tag
	// has neither omitempty nor omitzero, the field is not a pointer, and
	// no required tag says otherwise.
	Required bool
	// AsString is set when the json tag has the string option.
	AsString bool
}

// StructFields lists the JSON properties of struct type t in the order
// encoding/json writes them, following embedded structs. A name declared at
// a shallower depth hides the same name deeper down, as in encoding/json.
func StructFields(t reflect.Type) ([]Field, error) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("schema: %s is not a struct", t)
	}
	type entry struct {
		f     Field
		depth int
	}
	var out []entry
	seen := map[string]int{} // name -> index in out
	var walk func(t reflect.Type, index []int, depth int) error
	walk = func(t reflect.Type, index []int, depth int) error {
		for i := 0; i < t.NumField(); i++ {
			sf := t.Field(i)
			tag := sf.Tag.Get("json")
			if tag == "-" {
				continue
			}
			name, opts, _ := strings.Cut(tag, ",")
			if sf.Anonymous && name == "" {
				ft := sf.Type
				if ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}
				if ft.Kind() == reflect.Struct {
					if err := walk(ft, append(append([]int(nil), index...), i), depth+1); err != nil {
						return err
					}
					continue
				}
			}
			if !sf.IsExported() {
				continue
			}
			if name == "" {
				name = sf.Name
			}
			f := Field{Name: name, Go: sf, Owner: t}
			f.Go.Index = append(append([]int(nil), index...), i)
			f.Required = !hasOpt(opts, "omitempty") && !hasOpt(opts, "omitzero") && sf.Type.Kind() != reflect.Pointer
			f.AsString = hasOpt(opts, "string")
			if r, ok := sf.Tag.Lookup("required"); ok {
				switch r {
				case "true":
					f.Required = true
				case "false":
					f.Required = false
				default:
					return fmt.Errorf("schema: %s.%s: required tag must be true or false, not %q", t, sf.Name, r)
				}
			}
			if j, ok := seen[name]; ok {
				if out[j].depth <= depth {
					continue
				}
				out[j] = entry{f, depth}
				continue
			}
			seen[name] = len(out)
			out = append(out, entry{f, depth})
		}
		return nil
	}
	if err := walk(t, nil, 0); err != nil {
		return nil, err
	}
	fs := make([]Field, len(out))
	for i, e := range out {
		fs[i] = e.f
	}
	return fs, nil
}

func hasOpt(opts, want string) bool {
	for opts != "" {
		var o string
		o, opts, _ = strings.Cut(opts, ",")
		if o == want {
			return true
		}
	}
	return false
}
