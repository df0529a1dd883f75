package site

import (
	"github.com/affordances-go/affordances/internal/validate"
	"github.com/affordances-go/affordances/protocol"
)

// check validates a parsed input against the action's compiled schema and
// its Go field names, and returns every issue found.
func (a *action) check(v any) []protocol.Issue { return a.checker.Check(v) }

// decodeInput decodes a validated input into the handler's type, from its
// raw JSON when the door kept it, else from the parsed value (see
// validate.Decode for numbers such as 1.0).
func (a *action) decodeInput(raw []byte, v any) (any, error) {
	return validate.Decode(raw, v, a.decode)
}
