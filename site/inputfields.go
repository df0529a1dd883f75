package site

import (
	"github.com/affordances-go/affordances/internal/htmlform"
	"github.com/affordances-go/affordances/internal/schema"
)

// InputField is one field of a call's input as the person who approves
// it reads it: every field the call carries, beside the author's summary,
// so that what the summary leaves out is seen too. Label comes from the
// input schema (its title, else its description, else the field's name
// in words), nested fields read "Address › City"; Value is the value as
// text, with look-alike quotes and invisible characters written as code
// points (safetext.ShowAsData), "yes" or "no" for a boolean, and a secret
// (a password, a token) hidden.
type InputField struct {
	Label string `json:"label"`
	Value string `json:"value"`
}

// inputFields lists the fields of a call's input v for the person who
// approves it (htmlform.Fields), nil for none.
func inputFields(s *schema.Schema, v any) []InputField {
	fs := htmlform.Fields(s, v)
	if fs == nil {
		return nil
	}
	out := make([]InputField, len(fs))
	for i, f := range fs {
		out[i] = InputField(f)
	}
	return out
}
