package schema

import (
	"encoding/json"
	"errors"
	"math"
	"math/big"
	"strconv"
	"strings"
)

// FromText converts one value typed as text (an HTML form field, a
// key=value argument of the afford command) to the JSON value the schema s
// describes. Both callers use it, so a person gets the same answer in a
// browser and at a terminal:
//
//   - integer: a whole number in decimal, spaces around it ignored.
//   - number: a finite decimal number such as 2, 2.5 or 1e3.
//   - boolean: true, on, yes or 1 for true; false, off, no or 0 for
//     false; in any case. Anything else, the empty text included, is an
//     error: a caller that treats an absent checkbox as false does so
//     itself.
//   - string, and a schema with no single type: the text as it is.
//
// Numbers come back as json.Number, so that nothing is lost before the
// value is validated. Arrays and objects are not text: callers collect
// several values (a form's repeated field, a comma-separated list) and
// convert each one against s.Items. The error is a phrase to put after the
// field's name, such as "must be a whole number".
func FromText(s *Schema, v string) (any, error) {
	if s == nil {
		return v, nil
	}
	t := strings.TrimSpace(v)
	switch s.TypeName() {
	case "integer":
		if _, err := strconv.ParseInt(t, 10, 64); err == nil {
			return json.Number(t), nil
		}
		// 2.0 and 2e0 are whole numbers too, as JSON Schema counts them.
		// The float check first bounds the exponent big.Rat is given.
		if f, err := strconv.ParseFloat(t, 64); err == nil && len(t) <= 32 && math.Abs(f) < 9e18 {
			if r, ok := new(big.Rat).SetString(t); ok && r.IsInt() {
				return json.Number(r.Num().String()), nil
			}
		}
		return nil, errors.New("must be a whole number")
	case "number":
		f, err := strconv.ParseFloat(t, 64)
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			return nil, errors.New("must be a number")
		}
		return json.Number(strconv.FormatFloat(f, 'g', -1, 64)), nil
	case "boolean":
		switch strings.ToLower(t) {
		case "true", "on", "yes", "1":
			return true, nil
		case "false", "off", "no", "0":
			return false, nil
		}
		return nil, errors.New("must be true or false (also on/off, yes/no, 1/0)")
	}
	return v, nil
}
