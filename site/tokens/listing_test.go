package tokens

import (
	"encoding/json"
	"testing"
	"time"
	"unicode"
)

// The person's page is a graph an agent reads too: every key of its
// tokens entity is camelCase, as the protocol's own are, including what
// the form offers (its actions and the standing approval).
func TestListing_KeysAreTheWiresCase(t *testing.T) {
	l := Listing{
		Tokens:   []Listed{{ID: 1, Label: "laptop", MayDo: "everything", Created: time.Unix(0, 0)}},
		Actions:  []Choice{{Action: "placeOrder", Words: "place orders"}},
		Standing: &StandingOffer{Action: "placeOrder", Unit: "EUR", Scale: 100, MaxPerCall: 1000, MaxPerDay: 5000},
	}
	b, err := json.Marshal(l)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	json.Unmarshal(b, &v)
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				if unicode.IsUpper([]rune(k)[0]) {
					t.Errorf("key %q in %s", k, b)
				}
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	walk(v)
}
