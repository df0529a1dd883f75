package validate

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/affordances-go/affordances/internal/schema"
)

type addInput struct {
	SKU string `json:"sku"`
	Qty int    `json:"qty"`
}

func TestInput_CheckAndDecode(t *testing.T) {
	raw := []byte(`{"type":"object","required":["sku"],"additionalProperties":false,
		"properties":{"sku":{"type":"string"},"qty":{"type":"integer","minimum":1}}}`)
	var s schema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	in, err := NewInput("/p/add", raw, &s, reflect.TypeFor[addInput]())
	if err != nil {
		t.Fatal(err)
	}
	if issues := in.Check(map[string]any{"sku": "A", "qty": json.Number("2")}); len(issues) != 0 {
		t.Errorf("a good input: %v", issues)
	}
	issues := in.Check(map[string]any{"qty": json.Number("0")})
	if len(issues) != 2 || issues[0].Path > issues[1].Path {
		t.Errorf("missing sku and qty below 1, sorted: %v", issues)
	}
	decode := func(b []byte) (any, error) {
		var a addInput
		err := json.Unmarshal(b, &a)
		return a, err
	}
	got, err := Decode([]byte(`{"sku":"A","qty":1.0}`), map[string]any{"sku": "A", "qty": 1.0}, decode)
	if err != nil || got.(addInput).Qty != 1 {
		t.Errorf("1.0 as an integer: %v %v", got, err)
	}
	if _, err := NewInput("bad", []byte(`{"type":"nope"}`), &s, reflect.TypeFor[addInput]()); err == nil {
		t.Error("a schema that does not compile")
	}
	if string(Compact([]byte("{ \"a\" : 1 }"))) != `{"a":1}` {
		t.Error("Compact")
	}
}
