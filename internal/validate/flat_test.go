package validate

import (
	"encoding/json"
	"math/rand/v2"
	"testing"
)

// flatSchemas are input schemas of the shapes actions have, each with the
// quick check.
var flatSchemas = []string{
	`{"type":"object","additionalProperties":false,"required":["sku"],"properties":{
		"sku":{"type":"string","description":"the SKU","pattern":"^[A-Z0-9-]{3,40}$","examples":["TEE-BLK-M"]},
		"qty":{"type":"integer","minimum":1,"maximum":10,"default":1}}}`,
	`{"type":"object","required":["sku","qty"],"properties":{
		"sku":{"type":"string","minLength":3,"maxLength":5},
		"qty":{"type":"integer","minimum":0}}}`,
	`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","additionalProperties":false,"properties":{
		"email":{"type":"string","format":"email"},
		"size":{"type":"string","enum":["S","M","L","é"]},
		"gift":{"type":"boolean"},
		"tip":{"type":"number"},
		"note":{"type":"string","maxLength":3}}}`,
	`{"type":"object","properties":{}}`,
	`{"type":"object","additionalProperties":false,"properties":{"n":{"type":"integer","maximum":-2}}}`,
}

// notFlat are schemas the quick check must leave to the full validator.
var notFlat = []string{
	`{"type":"object","properties":{"a":{"type":"object"}}}`,
	`{"type":"object","properties":{"a":{"type":"array","items":{"type":"string"}}}}`,
	`{"type":"object","properties":{"a":{"type":"integer","exclusiveMinimum":0}}}`,
	`{"type":"object","properties":{"a":{"type":"integer","minimum":1.5}}}`,
	`{"type":"object","properties":{"a":{"type":"number","minimum":1}}}`,
	`{"type":"object","properties":{"a":{"type":["string","null"]}}}`,
	`{"type":"object","properties":{"a":{"type":"integer","multipleOf":2}}}`,
	`{"type":"object","properties":{"a":{"anyOf":[{"type":"string"},{"type":"integer"}]}}}`,
	`{"type":"object","properties":{"a":{"const":"x"}}}`,
	`{"type":"object","properties":{"a":{"type":"string","enum":["x",1]}}}`,
	`{"type":"object","additionalProperties":{"type":"string"}}`,
	`{"type":"object","additionalProperties":true,"properties":{}}`,
	`{"type":"object","patternProperties":{"^x":{"type":"string"}}}`,
	`{"type":"object","minProperties":1}`,
	`{"type":"object","properties":{"a":{"$ref":"#/$defs/s"}},"$defs":{"s":{"type":"string"}}}`,
	`{"type":"object","properties":{"a":{"type":"string","x-unknown":true}}}`,
	`{"properties":{"a":{"type":"string"}}}`,
	`{"type":"object","allOf":[{"required":["a"]}]}`,
}

func TestFlat_WhichSchemas(t *testing.T) {
	for _, raw := range flatSchemas {
		s, err := Compile("flat", []byte(raw))
		if err != nil {
			t.Fatal(err)
		}
		if newFlat([]byte(raw), s) == nil {
			t.Errorf("not taken as flat: %s", raw)
		}
	}
	for _, raw := range notFlat {
		s, err := Compile("notflat", []byte(raw))
		if err != nil {
			t.Fatal(err)
		}
		if newFlat([]byte(raw), s) != nil {
			t.Errorf("taken as flat: %s", raw)
		}
	}
}

// The quick check never says valid where the full validator says
// invalid, over inputs made of the values that trip validators: numbers
// in every spelling, strings at and past their bounds in bytes and in
// characters, wrong types, missing and extra members.
func TestFlat_NeverValidWhereTheValidatorIsNot(t *testing.T) {
	values := []any{
		"", "A", "AB", "ABC", "ABCDE", "ABCDEF", "TEE-BLK-M", "tee-blk-m", "ééé", "éééé", "🙂🙂🙂", "🙂🙂🙂🙂", "S", "M", "é", "e",
		"a@example.com", "not an email", "a@", string(make([]byte, 41)),
		json.Number("0"), json.Number("1"), json.Number("10"), json.Number("11"), json.Number("-0"), json.Number("-1"), json.Number("-2"),
		json.Number("-3"), json.Number("1.0"), json.Number("1e0"), json.Number("10E-1"), json.Number("1.5"), json.Number("2.5e3"),
		json.Number("99999999999999999999"), json.Number("-99999999999999999999"), json.Number("9223372036854775807"),
		true, false, nil, []any{}, []any{"A"}, map[string]any{}, 1.0, 3,
	}
	keys := []string{"sku", "qty", "email", "size", "gift", "tip", "note", "n", "SKU", "Qty", "extra"}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, raw := range flatSchemas {
		s, err := Compile("flat", []byte(raw))
		if err != nil {
			t.Fatal(err)
		}
		f := newFlat([]byte(raw), s)
		quick, agreed := 0, 0
		for range 100000 {
			v := map[string]any{}
			for range rng.IntN(4) {
				v[keys[rng.IntN(len(keys))]] = values[rng.IntN(len(values))]
			}
			err := s.Validate(v)
			if f.valid(v) {
				quick++
				if err != nil {
					t.Fatalf("%s\nthe quick check passed %v, the validator says: %v", raw, v, err)
				}
			} else if err == nil {
				agreed++ // valid, left to the full validator (1.0 as an integer, say)
			}
		}
		if quick == 0 {
			t.Errorf("%s: the quick check passed nothing", raw)
		}
		t.Logf("%d inputs passed the quick check; %d more valid ones went to the full validator", quick, agreed)
	}
	if f := (&flat{}); f.valid([]any{}) || f.valid("x") {
		t.Error("a value that is not an object")
	}
}
