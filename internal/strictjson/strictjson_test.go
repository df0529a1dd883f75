package strictjson_test

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/affordances-go/affordances/internal/strictjson"
)

func TestParse_RejectsWhatEncodingJSONWouldMerge(t *testing.T) {
	for doc, want := range map[string]string{
		`{"sku":"A","sku":"B"}`:       "appears twice",
		`{"sku":"A","SKU":"B"}`:       "differ only in case",
		`{"a":{"x":1,"X":2}}`:         "differ only in case",
		`[{"k":1,"k":1}]`:             "appears twice",
		strings.Repeat("[", 65) + "]": "nested",
		`{"a":"` + "\xff" + `"}`:      "UTF-8",
		`{"a":1,}`:                    "property name",
		`{"a":01}`:                    "expected",
		`"\x"`:                        "escape",
		`{"a":1} x`:                   "after the value",
		"\"a\tb\"":                    "control",
		``:                            "end of input",
	} {
		_, err := strictjson.Parse([]byte(doc), 64)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want %q", doc, err, want)
		}
	}
}

// Keys that differ only in case are refused however many keys come
// between them: among an object's first keys, past them, and across both.
func TestParse_CaseClashesInLargeObjects(t *testing.T) {
	object := func(keys ...string) string {
		var b strings.Builder
		b.WriteString("{")
		for i, k := range keys {
			if i > 0 {
				b.WriteString(",")
			}
			b.WriteString(`"` + k + `":1`)
		}
		return b.String() + "}"
	}
	many := []string{"k0", "k1", "k2", "k3", "k4", "k5", "k6", "k7", "k8", "k9", "k10", "k11"}
	for _, keys := range [][]string{
		append(append([]string{}, many...), "K2"),  // a late key against an early one
		append(append([]string{}, many...), "K10"), // against a late one
		append(append([]string{}, many[:3]...), "K1"),
	} {
		doc := object(keys...)
		if _, err := strictjson.Parse([]byte(doc), 64); err == nil || !strings.Contains(err.Error(), "differ only in case") {
			t.Errorf("%s: error %v, want a clash of case", doc, err)
		}
	}
	if _, err := strictjson.Parse([]byte(object(many...)), 64); err != nil {
		t.Errorf("twelve distinct keys: %v", err)
	}
}

func TestParse_ReadsWhatEncodingJSONReads(t *testing.T) {
	for _, doc := range []string{
		`{"a":[1,2.5,-0,1e3,{"b":null}],"c":true,"d":false,"e":"\u00e9\n\ud83d\ude00\"/"}`,
		`  []  `, `"x"`, `0`, `{"a":"\ud800"}`, strings.Repeat("[", 64) + strings.Repeat("]", 64),
	} {
		got, err := strictjson.Parse([]byte(doc), 64)
		if err != nil {
			t.Fatalf("%s: %v", doc, err)
		}
		if want := std(t, []byte(doc)); !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n got %#v\nwant %#v", doc, got, want)
		}
	}
}

func TestParseObject_KeepsTheRawMembers(t *testing.T) {
	o, err := strictjson.ParseObject([]byte(`{"action":"x", "input" : {"a": [1]} }`), 64)
	if err != nil {
		t.Fatal(err)
	}
	if string(o.Raw["input"]) != `{"a": [1]}` || string(o.Raw["action"]) != `"x"` {
		t.Errorf("raw %q", o.Raw)
	}
	if _, err := strictjson.ParseObject([]byte(`[1]`), 64); err == nil {
		t.Error("an array was taken for an object")
	}
}

func std(t testing.TB, b []byte) any {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

// FuzzParse checks that whatever the strict parser accepts, encoding/json
// accepts too and reads as the same value.
func FuzzParse(f *testing.F) {
	for _, s := range []string{`{"a":1}`, `[1,"x",null,true]`, `{"sku":"A","SKU":"B"}`, `"\ud83d\ude00"`, `-1.5e-3`, `{"a":{"b":[{}]}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := strictjson.Parse(b, 64)
		if err != nil {
			return
		}
		if !json.Valid(b) {
			t.Fatalf("accepted invalid JSON %q", b)
		}
		if want := std(t, b); !reflect.DeepEqual(got, want) {
			t.Fatalf("%q:\n got %#v\nwant %#v", b, got, want)
		}
	})
}
