package htmlform

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/affordances-go/affordances/internal/schema"
)

func mustSchema(t *testing.T, src string) *schema.Schema {
	t.Helper()
	var s schema.Schema
	if err := json.Unmarshal([]byte(src), &s); err != nil {
		t.Fatal(err)
	}
	return &s
}

const order = `{"type":"object","required":["qty"],"properties":{
	"qty":{"type":"integer","minimum":1,"maximum":10,"default":1},
	"gift":{"type":"boolean"},
	"tags":{"type":"array","items":{"type":"string"}},
	"address":{"type":"object","properties":{"city":{"type":"string"}}},
	"password":{"type":"string"},
	"size":{"enum":["S","M"]}}}`

func TestDecode(t *testing.T) {
	s := mustSchema(t, order)
	v, issues := Decode(s, map[string][]string{"qty": {"2"}, "tags": {"a", "", "b"}, "address.city": {"Lyon"}, "csrf": {"x"}})
	got, _ := json.Marshal(v)
	const want = `{"address":{"city":"Lyon"},"gift":false,"qty":2,"tags":["a","b"]}`
	if len(issues) > 0 || string(got) != want {
		t.Errorf("got %s %v\nwant %s", got, issues, want)
	}
	_, issues = Decode(s, map[string][]string{"qty": {"two"}, "tags": {"x"}})
	if len(issues) != 1 || issues[0].Path != "/qty" {
		t.Errorf("issues %v", issues)
	}
	if !NamesField(s, "address.city") || NamesField(s, "address.zip") || NamesField(s, "csrf") {
		t.Error("NamesField")
	}
}

func TestForm_HTML(t *testing.T) {
	f := Form{Action: "order", Input: mustSchema(t, order), Available: true, Fixed: map[string]string{"size": "M"}, Button: "Order"}
	out := f.HTML()
	if strings.Contains(out, "toolautosubmit") {
		t.Error("the tool of an action that changes something submits by itself")
	}
	f.ReadOnly = true
	out = f.HTML()
	for _, want := range []string{`toolname="order"`, `tooldescription="Order"`, `toolautosubmit`, `<input type="hidden" name="size" value="M">`,
		`type="number" id="order-qty" name="qty" value="1" min="1" max="10" required`, `<input type="password"`, `<button type="submit">Order</button>`} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %s in\n%s", want, out)
		}
	}
	f.Confirm = true
	if strings.Contains(f.HTML(), "toolautosubmit") {
		t.Error("a confirm action's tool submits by itself")
	}
	f.Available, f.Reason = false, "sold out"
	if out := f.HTML(); strings.Contains(out, "toolname") || !strings.Contains(out, `disabled`) || !strings.Contains(out, "sold out") {
		t.Errorf("unavailable: %s", out)
	}
	f = Form{Action: "order", Input: mustSchema(t, order), Available: true, Failed: true,
		FieldError: func(k string) string { return map[string]string{"qty": "too many"}[k] },
		Values:     func(k string) string { return map[string]string{"qty": "12", "password": "secret"}[k] }}
	out = f.HTML()
	if !strings.Contains(out, `value="12"`) || !strings.Contains(out, "too many") || strings.Contains(out, "secret") {
		t.Errorf("failed form: %s", out)
	}
}

// A password field tells the person's browser what it holds: the current
// password by default, or what its property's autocomplete tag says (a
// new password on a sign-up form), so that a password manager fills it
// in, or offers a new one, and the browser has nothing to warn about.
func TestForm_PasswordsSayWhatTheyHold(t *testing.T) {
	s := mustSchema(t, `{"type":"object","properties":{"email":{"type":"string"},"password":{"type":"string"}}}`)
	if out := (Form{Action: "signIn", Input: s, Available: true}).HTML(); !strings.Contains(out, `name="password" value="" autocomplete="current-password"`) {
		t.Errorf("sign-in form:\n%s", out)
	}
	s.Properties[1].Schema.Autocomplete = "new-password"
	out := (Form{Action: "signUp", Input: s, Available: true}).HTML()
	if !strings.Contains(out, `autocomplete="new-password"`) || strings.Contains(out, "current-password") {
		t.Errorf("sign-up form:\n%s", out)
	}
	if strings.Count(out, "autocomplete=") != 1 {
		t.Errorf("only the field that says what it holds has autocomplete:\n%s", out)
	}
}

// The person who approves a call reads every field it carries: in the
// schema's order, then the others by name, nested fields under their
// parent's label, a boolean as yes or no, and a secret hidden.
func TestFields_EveryFieldAsThePersonReadsIt(t *testing.T) {
	s := mustSchema(t, `{"type":"object","properties":{
		"qty":{"type":"integer","title":"How many"},
		"address":{"type":"object","description":"deliver to","properties":{"city":{"type":"string"}}},
		"gift":{"type":"boolean"},
		"password":{"type":"string"}}}`)
	v := map[string]any{"zeta": "z", "password": "hunter2", "gift": true, "qty": 2.0,
		"address": map[string]any{"city": "Paris"}}
	got := fmt.Sprint(Fields(s, v))
	want := "[{How many 2} {Deliver to › City Paris} {Gift yes} {Password (hidden)} {Zeta z}]"
	if got != want {
		t.Errorf("fields\n got %s\nwant %s", got, want)
	}
	if Fields(s, map[string]any{}) != nil {
		t.Error("no fields is nil")
	}
}
