package words

import (
	"encoding/json"
	"testing"
)

func TestProperty_Describe(t *testing.T) {
	for schema, want := range map[string]string{
		`{"type":"integer","minimum":1,"maximum":10,"default":1,"description":"how many"}`: "integer, required, 1 to 10, default 1: how many",
		`{"type":"string","pattern":"^[A-Z]{2}$","examples":["FR"]}`:                       "string, required, matching ^[A-Z]{2}$, e.g. FR",
		`{"type":["string","null"],"minLength":1,"maxLength":40,"format":"email"}`:         "string or null, required, 1 to 40 characters, email",
		`{"type":"string","minLength":1}`:                                                  "string, required, at least 1 character",
		`{"enum":["S","M"],"description":"size"}`:                                          "required, one of S, M: size",
	} {
		var p Property
		if err := json.Unmarshal([]byte(schema), &p); err != nil {
			t.Fatal(err)
		}
		if got := p.Describe(true); got != want {
			t.Errorf("%s:\n got %q\nwant %q", schema, got, want)
		}
	}
	if got := (Property{Type: "boolean"}).Describe(false); got != "boolean" {
		t.Errorf("optional boolean: %q", got)
	}
}
