package strictjson

import (
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// This file is the parser's reading of a JSON string: escapes decoded, UTF-8
// and surrogate pairs checked.

func (p *parser) string() (string, error) {
	p.pos++ // opening quote
	start := p.pos
	d := p.data
	// Fast path: no escapes.
	for p.pos < len(d) {
		c := d[p.pos]
		if c == '"' {
			s := d[start:p.pos]
			if !utf8.Valid(s) {
				return "", &Error{start, "invalid UTF-8 in a string"}
			}
			p.pos++
			return string(s), nil
		}
		if c == '\\' {
			break
		}
		if c < 0x20 {
			return "", p.fail("control character in a string")
		}
		p.pos++
	}
	var b strings.Builder
	b.Write(d[start:p.pos])
	for p.pos < len(d) {
		c := d[p.pos]
		switch {
		case c == '"':
			p.pos++
			s := b.String()
			if !utf8.ValidString(s) {
				return "", &Error{start, "invalid UTF-8 in a string"}
			}
			return s, nil
		case c < 0x20:
			return "", p.fail("control character in a string")
		case c != '\\':
			b.WriteByte(c)
			p.pos++
			continue
		}
		p.pos++ // backslash
		if p.pos >= len(d) {
			break
		}
		e := d[p.pos]
		p.pos++
		switch e {
		case '"', '\\', '/':
			b.WriteByte(e)
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'u':
			r, ok := p.hex4()
			if !ok {
				return "", p.fail("invalid \\u escape")
			}
			if utf16.IsSurrogate(r) {
				r2 := utf8.RuneError
				if p.pos+1 < len(d) && d[p.pos] == '\\' && d[p.pos+1] == 'u' {
					save := p.pos
					p.pos += 2
					var ok2 bool
					if r2, ok2 = p.hex4(); !ok2 {
						return "", p.fail("invalid \\u escape")
					}
					if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
						b.WriteRune(dec)
						continue
					}
					p.pos = save // not a pair: the second escape stands alone
				}
				b.WriteRune(utf8.RuneError) // a lone surrogate, as encoding/json reads it
				continue
			}
			b.WriteRune(r)
		default:
			return "", p.fail("invalid escape \\%c", e)
		}
	}
	return "", p.fail("unterminated string")
}

func (p *parser) hex4() (rune, bool) {
	if p.pos+4 > len(p.data) {
		return 0, false
	}
	var r rune
	for _, c := range p.data[p.pos : p.pos+4] {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c - 'a' + 10)
		case c >= 'A' && c <= 'F':
			r |= rune(c - 'A' + 10)
		default:
			return 0, false
		}
	}
	p.pos += 4
	return r, true
}
