package botauth

import (
	"encoding/base64"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// The subset of Structured Field Values (RFC 8941) that HTTP message
// signatures use: a dictionary whose members are inner lists of strings
// (Signature-Input) or byte sequences (Signature), with parameters.

// param is one parameter: its name and an int64, a string, a token or a
// bool.
type param struct {
	name  string
	value any
}

// params are a member's parameters, in their order.
type params []param

func (ps params) get(name string) (any, bool) {
	for _, p := range ps {
		if p.name == name {
			return p.value, true
		}
	}
	return nil, false
}

func (ps params) str(name string) (string, bool) {
	v, ok := ps.get(name)
	s, isStr := v.(string)
	return s, ok && isStr
}

func (ps params) integer(name string) (int64, bool) {
	v, ok := ps.get(name)
	n, isInt := v.(int64)
	return n, ok && isInt
}

// token is an sf-token, kept apart from a string for serialization.
type token string

// member is one dictionary member: an inner list of strings (the covered
// components), or a byte sequence (a signature), with its parameters.
type member struct {
	label  string
	items  []string // the inner list's strings, when it is one
	isList bool
	bytes  []byte // the byte sequence, when it is one
	params params
}

// parser reads one header value.
type parser struct {
	s string
	i int
}

func (p *parser) ws() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t') {
		p.i++
	}
}

func (p *parser) peek() byte {
	if p.i < len(p.s) {
		return p.s[p.i]
	}
	return 0
}

// key reads a key: lowercase letter or *, then lowercase letters, digits,
// _ - . *.
func (p *parser) key() (string, error) {
	start := p.i
	if c := p.peek(); !(c >= 'a' && c <= 'z') && c != '*' {
		return "", fmt.Errorf("a key at %d", p.i)
	}
	for p.i < len(p.s) {
		c := p.s[p.i]
		if (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.' || c == '*' {
			p.i++
			continue
		}
		break
	}
	return p.s[start:p.i], nil
}

func (p *parser) str() (string, error) {
	if p.peek() != '"' {
		return "", errors.New("a string")
	}
	p.i++
	var b strings.Builder
	for p.i < len(p.s) {
		c := p.s[p.i]
		p.i++
		switch {
		case c == '\\':
			if p.i >= len(p.s) || (p.s[p.i] != '"' && p.s[p.i] != '\\') {
				return "", errors.New("a bad escape in a string")
			}
			b.WriteByte(p.s[p.i])
			p.i++
		case c == '"':
			return b.String(), nil
		case c < 0x20 || c > 0x7e:
			return "", errors.New("a control or non-ASCII character in a string")
		default:
			b.WriteByte(c)
		}
	}
	return "", errors.New("an unterminated string")
}

func (p *parser) bareItem() (any, error) {
	c := p.peek()
	switch {
	case c == '"':
		return p.str()
	case c == '?':
		p.i++
		switch p.peek() {
		case '1':
			p.i++
			return true, nil
		case '0':
			p.i++
			return false, nil
		}
		return nil, errors.New("a bad boolean")
	case c == '-' || (c >= '0' && c <= '9'):
		start := p.i
		p.i++
		for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
			p.i++
		}
		if p.i < len(p.s) && p.s[p.i] == '.' {
			return nil, errors.New("a decimal, where an integer is expected")
		}
		n, err := strconv.ParseInt(p.s[start:p.i], 10, 64)
		if err != nil || p.i-start > 16 {
			return nil, errors.New("a bad integer")
		}
		return n, nil
	case (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '*':
		start := p.i
		p.i++
		for p.i < len(p.s) && tokenChar(p.s[p.i]) {
			p.i++
		}
		return token(p.s[start:p.i]), nil
	}
	return nil, fmt.Errorf("an item at %d", p.i)
}

// tokenChar reports whether c may follow a token's first character: an
// HTTP tchar, ':' or '/' (RFC 8941, 3.3.4). Anything else ends the token,
// and what follows must then be a delimiter, so a non-ASCII byte, a
// control or a '{' in a token is an error.
func tokenChar(c byte) bool {
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		return true
	}
	return strings.IndexByte("!#$%&'*+-.^_`|~:/", c) >= 0
}

func (p *parser) params() (params, error) {
	var out params
	for p.peek() == ';' {
		p.i++
		p.ws()
		k, err := p.key()
		if err != nil {
			return nil, err
		}
		var v any = true
		if p.peek() == '=' {
			p.i++
			if v, err = p.bareItem(); err != nil {
				return nil, err
			}
		}
		if _, dup := out.get(k); dup {
			return nil, fmt.Errorf("the parameter %s twice", k)
		}
		out = append(out, param{k, v})
	}
	return out, nil
}

// parseDictionary parses a dictionary of inner lists and byte sequences.
func parseDictionary(s string) ([]member, error) {
	p := &parser{s: strings.TrimSpace(s)}
	var out []member
	for p.i < len(p.s) {
		label, err := p.key()
		if err != nil {
			return nil, err
		}
		if p.peek() != '=' {
			return nil, fmt.Errorf("%s has no value", label)
		}
		p.i++
		m := member{label: label}
		switch p.peek() {
		case '(':
			p.i++
			m.isList = true
			for {
				p.ws()
				if p.peek() == ')' {
					p.i++
					break
				}
				item, err := p.str()
				if err != nil {
					return nil, fmt.Errorf("%s: a covered component must be %w", label, err)
				}
				if p.peek() == ';' {
					return nil, fmt.Errorf("%s: component parameters are not supported", label)
				}
				m.items = append(m.items, item)
				if c := p.peek(); c != ' ' && c != ')' {
					return nil, fmt.Errorf("%s: a bad inner list", label)
				}
			}
		case ':':
			p.i++
			end := strings.IndexByte(p.s[p.i:], ':')
			if end < 0 {
				return nil, fmt.Errorf("%s: an unterminated byte sequence", label)
			}
			// RFC 8941 asks parsers not to fail on missing "=" padding,
			// as other implementations (npm web-bot-auth) send it.
			b, err := base64.StdEncoding.DecodeString(p.s[p.i : p.i+end])
			if err != nil && !strings.Contains(p.s[p.i:p.i+end], "=") {
				b, err = base64.RawStdEncoding.DecodeString(p.s[p.i : p.i+end])
			}
			if err != nil {
				return nil, fmt.Errorf("%s: a bad byte sequence", label)
			}
			m.bytes = b
			p.i += end + 1
		default:
			return nil, fmt.Errorf("%s: an inner list or a byte sequence is expected", label)
		}
		if m.params, err = p.params(); err != nil {
			return nil, fmt.Errorf("%s: %w", label, err)
		}
		// A key given twice is its last value, in the place of the first
		// (RFC 8941, 4.2.2): what is checked is what a conforming reader
		// of the header would take.
		if i := slices.IndexFunc(out, func(o member) bool { return o.label == label }); i >= 0 {
			out[i] = m
		} else {
			out = append(out, m)
		}
		p.ws()
		if p.i < len(p.s) {
			if p.peek() != ',' {
				return nil, fmt.Errorf("a bad dictionary at %d", p.i)
			}
			p.i++
			p.ws()
			if p.i == len(p.s) {
				return nil, errors.New("a trailing comma")
			}
		}
	}
	return out, nil
}

// serializeParams writes a signature's covered components and parameters
// as RFC 8941 does: the "@signature-params" line of the signature base
// and the Signature-Input member's value.
func serializeParams(items []string, ps params) string {
	var b strings.Builder
	b.WriteByte('(')
	for i, it := range items {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(quote(it))
	}
	b.WriteByte(')')
	for _, p := range ps {
		b.WriteByte(';')
		b.WriteString(p.name)
		switch v := p.value.(type) {
		case int64:
			b.WriteByte('=')
			b.WriteString(strconv.FormatInt(v, 10))
		case string:
			b.WriteByte('=')
			b.WriteString(quote(v))
		case token:
			b.WriteByte('=')
			b.WriteString(string(v))
		case bool:
			if !v {
				b.WriteString("=?0")
			}
		}
	}
	return b.String()
}

func quote(s string) string {
	if !strings.ContainsAny(s, `"\`) {
		return `"` + s + `"`
	}
	return `"` + quoteEscapes.Replace(s) + `"`
}

// quoteEscapes escapes a string's quotes and backslashes.
var quoteEscapes = strings.NewReplacer(`\`, `\\`, `"`, `\"`)
