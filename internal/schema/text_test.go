package schema_test

import (
	"encoding/json"
	"testing"

	"github.com/affordances-go/affordances/internal/schema"
)

func TestFromText_OneAnswerForFormsAndTheCommandLine(t *testing.T) {
	typ := func(t any) *schema.Schema { return &schema.Schema{Type: t} }
	cases := []struct {
		s    *schema.Schema
		in   string
		want any // nil: an error
	}{
		{typ("integer"), "42", json.Number("42")},
		{typ("integer"), " 7 ", json.Number("7")},
		{typ("integer"), "4.5", nil},
		{typ("integer"), "4.0", json.Number("4")},
		{typ("integer"), "1e1", json.Number("10")},
		{typ("integer"), "1e999999", nil},
		{typ("integer"), "", nil},
		{typ([]any{"integer", "null"}), "3", json.Number("3")},
		{typ("number"), "2.50", json.Number("2.5")},
		{typ("number"), "1e3", json.Number("1000")},
		{typ("number"), "NaN", nil},
		{typ("number"), "1e400", nil},
		{typ("boolean"), "on", true},
		{typ("boolean"), "YES", true},
		{typ("boolean"), "1", true},
		{typ("boolean"), "true", true},
		{typ("boolean"), "off", false},
		{typ("boolean"), "No", false},
		{typ("boolean"), "0", false},
		{typ("boolean"), "false", false},
		{typ("boolean"), "", nil},
		{typ("boolean"), "maybe", nil},
		{typ("string"), " as is ", " as is "},
		{nil, "x", "x"},
	}
	for _, c := range cases {
		got, err := schema.FromText(c.s, c.in)
		if c.want == nil {
			if err == nil {
				t.Errorf("FromText(%v, %q) = %v, want an error", c.s.Type, c.in, got)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("FromText(%v, %q) = %#v, %v; want %#v", c.s.Type, c.in, got, err, c.want)
		}
	}
}
