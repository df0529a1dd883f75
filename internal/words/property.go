package words

import (
	"fmt"
	"strconv"
	"strings"
)

// Property is what a person or a model is told of one property of an
// input schema. Its fields decode from the schema's JSON.
type Property struct {
	Type        any      `json:"type"`
	Description string   `json:"description"`
	Pattern     string   `json:"pattern"`
	Format      string   `json:"format"`
	Enum        []any    `json:"enum"`
	Examples    []any    `json:"examples"`
	Default     any      `json:"default"`
	Minimum     *float64 `json:"minimum"`
	Maximum     *float64 `json:"maximum"`
	MinLength   *int     `json:"minLength"`
	MaxLength   *int     `json:"maxLength"`
}

// Describe writes what the property takes in a line, for every surface
// that lists an action's input (afford's output, a page's Markdown):
// "integer, required, 1 to 10, default 1: how many".
func (p Property) Describe(required bool) string {
	var parts []string
	switch t := p.Type.(type) {
	case string:
		parts = append(parts, t)
	case []any:
		var ts []string
		for _, x := range t {
			ts = append(ts, fmt.Sprint(x))
		}
		parts = append(parts, strings.Join(ts, " or "))
	}
	if required {
		parts = append(parts, "required")
	}
	num := func(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }
	switch {
	case p.Minimum != nil && p.Maximum != nil:
		parts = append(parts, num(*p.Minimum)+" to "+num(*p.Maximum))
	case p.Minimum != nil:
		parts = append(parts, "at least "+num(*p.Minimum))
	case p.Maximum != nil:
		parts = append(parts, "at most "+num(*p.Maximum))
	}
	switch {
	case p.MinLength != nil && p.MaxLength != nil:
		parts = append(parts, fmt.Sprintf("%d to %s", *p.MinLength, characters(*p.MaxLength)))
	case p.MinLength != nil:
		parts = append(parts, "at least "+characters(*p.MinLength))
	case p.MaxLength != nil:
		parts = append(parts, "at most "+characters(*p.MaxLength))
	}
	if p.Format != "" {
		parts = append(parts, p.Format)
	}
	if len(p.Enum) > 0 {
		var vs []string
		for _, v := range p.Enum {
			vs = append(vs, fmt.Sprint(v))
		}
		parts = append(parts, "one of "+strings.Join(vs, ", "))
	}
	if p.Pattern != "" {
		parts = append(parts, "matching "+p.Pattern)
	}
	if len(p.Examples) > 0 {
		parts = append(parts, fmt.Sprintf("e.g. %v", p.Examples[0]))
	}
	if p.Default != nil {
		parts = append(parts, fmt.Sprintf("default %v", p.Default))
	}
	line := strings.Join(parts, ", ")
	if p.Description != "" {
		line += ": " + p.Description
	}
	return line
}

// characters writes a count of characters: "1 character", "3 characters".
func characters(n int) string {
	if n == 1 {
		return "1 character"
	}
	return strconv.Itoa(n) + " characters"
}
