package schema_test

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/affordances-go/affordances/internal/schema"
)

type Base struct {
	ID    string `json:"id"`
	Shade string `json:"shade,omitempty"`
}

type everything struct {
	Base
	Name     string            `json:"name" description:"a name" minLength:"1" maxLength:"20" pattern:"^[a-z]+$"`
	Qty      int               `json:"qty,omitempty" minimum:"1" maximum:"10" default:"1"`
	Small    int8              `json:"small,omitzero"`
	Count    uint              `json:"count"`
	Ratio    float64           `json:"ratio" required:"false"`
	Ok       bool              `json:"ok"`
	Size     string            `json:"size" enum:"S,M,L"`
	Levels   []int             `json:"levels" enum:"1,2" minItems:"1" maxItems:"2"`
	Pair     [2]string         `json:"pair"`
	Tags     map[string]string `json:"tags"`
	Any      any               `json:"any"`
	Optional *string           `json:"optional"`
	Must     *string           `json:"must" required:"true"`
	When     time.Time         `json:"when"`
	Raw      json.RawMessage   `json:"raw"`
	Shade    int               `json:"shade"` // hides Base.Shade
	Skipped  string            `json:"-"`
	//lint:ignore U1000 the field exists to prove that the schema skips it
	hidden string // unexported: encoding/json skips it, so must the schema
	NoTag  string
}

func TestInfer_ReadsEveryTagAndFollowsEncodingJSON(t *testing.T) {
	s, err := schema.Infer(reflect.TypeFor[everything](), &schema.Options{Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(s)
	want := `{"type":"object","properties":{` +
		`"id":{"type":"string"},` +
		`"shade":{"type":"integer"},` +
		`"name":{"description":"a name","type":"string","pattern":"^[a-z]+$","minLength":1,"maxLength":20},` +
		`"qty":{"type":"integer","minimum":1,"maximum":10,"default":1},` +
		`"small":{"type":"integer","minimum":-128,"maximum":127},` +
		`"count":{"type":"integer","minimum":0},` +
		`"ratio":{"type":"number"},` +
		`"ok":{"type":"boolean"},` +
		`"size":{"type":"string","enum":["S","M","L"]},` +
		`"levels":{"type":"array","items":{"type":"integer","enum":[1,2]},"minItems":1,"maxItems":2},` +
		`"pair":{"type":"array","items":{"type":"string"},"minItems":2,"maxItems":2},` +
		`"tags":{"type":"object","additionalProperties":{"type":"string"}},` +
		`"any":{},` +
		`"optional":{"type":"string"},` +
		`"must":{"type":"string"},` +
		`"when":{"type":"string","format":"date-time"},` +
		`"raw":{},` +
		`"NoTag":{"type":"string"}},` +
		`"required":["id","shade","name","count","ok","size","levels","pair","tags","any","must","when","raw","NoTag"],` +
		`"additionalProperties":false}`
	if string(got) != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

type node struct {
	Next *node `json:"next"`
}

func TestInfer_RejectsWhatJSONCannotCarryAndBadTags(t *testing.T) {
	cases := map[reflect.Type]string{
		reflect.TypeFor[node](): "recursive",
		reflect.TypeFor[struct {
			C chan int `json:"c"`
		}](): "cannot be represented",
		reflect.TypeFor[struct {
			N int `json:"n" pattern:"x"`
		}](): "pattern applies to strings",
		reflect.TypeFor[struct {
			N int `json:"n" minimum:"1.5"`
		}](): "not an integer",
		reflect.TypeFor[struct {
			N int `json:"n" minimum:"5" maximum:"1"`
		}](): "above maximum",
		reflect.TypeFor[struct {
			S string `json:"s" pattern:"("`
		}](): "pattern",
		reflect.TypeFor[struct {
			N int `json:"n" enum:"a"`
		}](): "not an integer",
		reflect.TypeFor[struct {
			S string `json:"s" required:"yes"`
		}](): "required tag",
		reflect.TypeFor[struct {
			S string `json:"s" minItems:"1"`
		}](): "minItems applies to arrays",
	}
	for typ, want := range cases {
		_, err := schema.Infer(typ, nil)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want one containing %q", typ, err, want)
		}
	}
}

func TestSchema_RoundTripsThroughJSON(t *testing.T) {
	in := `{"type":"object","properties":{"b":{"type":"string"},"a":{"type":"integer"}},"required":["b"],"additionalProperties":false}`
	var s schema.Schema
	if err := json.Unmarshal([]byte(in), &s); err != nil {
		t.Fatal(err)
	}
	out, _ := json.Marshal(&s)
	if string(out) != in {
		t.Errorf("round trip:\n%s\n%s", out, in)
	}
}

// The fields of one JSON name are resolved as encoding/json resolves them,
// so that the schema describes exactly what the decoder fills.
func TestStructFields_ConflictsFollowEncodingJSON(t *testing.T) {
	type A struct{ X, Y, Z int }
	type B struct {
		X int
		Y int `json:"Y"`
		Z int
	}
	type Deep struct{ W int }
	type C struct {
		A
		B
		Deep
		W int `json:"-"` // skipped: does not hide Deep.W
	}
	fs, err := schema.StructFields(reflect.TypeFor[C]())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range fs {
		got = append(got, f.Name)
	}
	// X and Z: two untagged fields at one depth, dropped. Y: B's tagged
	// field wins. W: only Deep's.
	for _, name := range []string{"Y", "W"} {
		if !slices.Contains(got, name) {
			t.Errorf("%s missing from %v", name, got)
		}
	}
	for _, name := range []string{"X", "Z"} {
		if slices.Contains(got, name) {
			t.Errorf("%s is ambiguous and must be dropped, as encoding/json does: %v", name, got)
		}
	}
	// The decoder agrees.
	var c C
	if err := json.Unmarshal([]byte(`{"X":1,"Y":2,"Z":3,"W":4}`), &c); err != nil {
		t.Fatal(err)
	}
	if c.A.X != 0 || c.B.X != 0 || c.B.Y != 2 || c.A.Y != 0 || c.Deep.W != 4 {
		t.Errorf("encoding/json decoded %+v", c)
	}
}

// The autocomplete tag is for the person's form only: it is read into the
// schema, never written to the wire, and must be autofill tokens.
func TestInfer_AutocompleteIsTheFormsAlone(t *testing.T) {
	s, err := schema.Infer(reflect.TypeFor[struct {
		Password string `json:"password" autocomplete:"new-password"`
	}](), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Properties[0].Schema.Autocomplete; got != "new-password" {
		t.Errorf("autocomplete %q", got)
	}
	if b, _ := json.Marshal(s); strings.Contains(string(b), "autocomplete") || strings.Contains(string(b), "new-password") {
		t.Errorf("the autocomplete tag went on the wire: %s", b)
	}
	for _, bad := range []string{`"><script>`, "", "new password!"} {
		typ := reflect.StructOf([]reflect.StructField{{Name: "P", Type: reflect.TypeFor[string](),
			Tag: reflect.StructTag(`json:"p" autocomplete:"` + strings.ReplaceAll(bad, `"`, `\"`) + `"`)}})
		if _, err := schema.Infer(typ, nil); err == nil || !strings.Contains(err.Error(), "autocomplete") {
			t.Errorf("autocomplete %q: error %v", bad, err)
		}
	}
}
