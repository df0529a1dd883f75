// Package bearer reads an Authorization: Bearer header strictly (RFC 6750
// and RFC 9110's token68), for package site's BearerToken and its
// authentication of a request, which reads the header once (Parse).
package bearer

import (
	"net/http"
	"strings"
)

// Parse reads the request's Authorization header once: the bearer token
// it carries (ok), and whether it names the Bearer scheme, or carries
// several Authorization headers, without a well-formed token (malformed;
// see [Malformed]). A request without the header is neither.
func Parse(r *http.Request) (token string, ok, malformed bool) {
	vs := r.Header.Values("Authorization")
	switch len(vs) {
	case 0:
		return "", false, false
	case 1:
	default:
		return "", false, true
	}
	scheme, rest, found := strings.Cut(vs[0], " ")
	if found && strings.EqualFold(scheme, "bearer") {
		if token = strings.TrimLeft(rest, " "); isToken68(token) {
			return token, true, false
		}
	}
	v := strings.TrimLeft(vs[0], " \t")
	return "", false, len(v) >= 6 && strings.EqualFold(v[:6], "bearer")
}

// Token returns the token of the request's Authorization: Bearer
// header (the scheme's name in any case, then one or more spaces, then a
// token68), for authenticators. ok is false when the request carries no
// well-formed bearer token; a header that names the Bearer scheme without
// one is refused by the site with 401 before any authenticator runs (see
// [Malformed]).
func Token(r *http.Request) (token string, ok bool) {
	token, ok, _ = Parse(r)
	return token, ok
}

// Malformed reports whether the request names the Bearer scheme in
// its Authorization header without a well-formed token: a bare "Bearer",
// a tab instead of a space, a token with characters a token68 cannot
// have, or several Authorization headers. Such a request is answered 401,
// never treated as one without a token (which could fall back to a cookie).
func Malformed(r *http.Request) bool {
	_, _, malformed := Parse(r)
	return malformed
}

// isToken68 reports whether s is an RFC 9110 token68.
func isToken68(s string) bool {
	if s == "" {
		return false
	}
	end := len(s)
	for end > 0 && s[end-1] == '=' {
		end--
	}
	if end == 0 {
		return false
	}
	for i := 0; i < end; i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9',
			c == '-', c == '.', c == '_', c == '~', c == '+', c == '/':
		default:
			return false
		}
	}
	return true
}
