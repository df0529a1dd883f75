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
// encoding/json writes them, following embedded structs. Names conflict as
// in encoding/json: the shallowest field of a name wins; of several at that
// depth, the one with a json tag wins; if that leaves more than one (or
// none), the name is dropped altogether, and hides the deeper fields too.
func StructFields(t reflect.Type) ([]Field, error) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("schema: %s is not a struct", t)
	}
	var all []candidate
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
			tagged := name != ""
			if !tagged {
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
			all = append(all, candidate{f, depth, tagged})
		}
		return nil
	}
	if err := walk(t, nil, 0); err != nil {
		return nil, err
	}
	// Group the candidates by name, in the order of their first field, and
	// keep the one encoding/json keeps.
	var names []string
	byName := map[string][]candidate{}
	for _, e := range all {
		if _, ok := byName[e.f.Name]; !ok {
			names = append(names, e.f.Name)
		}
		byName[e.f.Name] = append(byName[e.f.Name], e)
	}
	var fs []Field
	for _, name := range names {
		if f, ok := dominant(byName[name]); ok {
			fs = append(fs, f.f)
		}
	}
	return fs, nil
}

// candidate is one field that may give a JSON property its value.
type candidate struct {
	f      Field
	depth  int
	tagged bool // the json tag names the property
}

// dominant picks the field encoding/json uses among the fields of one
// name: the only one at the shallowest depth, or the only tagged one
// there. ok is false when encoding/json drops the name.
func dominant(cs []candidate) (c candidate, ok bool) {
	minDepth := cs[0].depth
	for _, x := range cs {
		minDepth = min(minDepth, x.depth)
	}
	var top []candidate
	for _, x := range cs {
		if x.depth == minDepth {
			top = append(top, x)
		}
	}
	if len(top) == 1 {
		return top[0], true
	}
	var tagged []candidate
	for _, x := range top {
		if x.tagged {
			tagged = append(tagged, x)
		}
	}
	if len(tagged) == 1 {
		return tagged[0], true
	}
	return candidate{}, false
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
