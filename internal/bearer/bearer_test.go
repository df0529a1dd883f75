package bearer

import (
	"net/http/httptest"
	"testing"
)

func TestTokenAndMalformed(t *testing.T) {
	for _, c := range []struct {
		headers   []string
		token     string
		ok, wrong bool
	}{
		{nil, "", false, false},
		{[]string{"Bearer abc"}, "abc", true, false},
		{[]string{"bearer   a.b-c_d~e+f/g=="}, "a.b-c_d~e+f/g==", true, false},
		{[]string{"Basic dXNlcjpwdw=="}, "", false, false},
		{[]string{"Bearer"}, "", false, true},
		{[]string{"Bearer\tabc"}, "", false, true},
		{[]string{"Bearer a b"}, "", false, true},
		{[]string{"Bearer ="}, "", false, true},
		{[]string{"Bearer abc", "Bearer abc"}, "", false, true},
	} {
		r := httptest.NewRequest("GET", "/", nil)
		for _, h := range c.headers {
			r.Header.Add("Authorization", h)
		}
		tok, ok := Token(r)
		if tok != c.token || ok != c.ok || Malformed(r) != c.wrong {
			t.Errorf("%q: Token = %q, %v; Malformed = %v", c.headers, tok, ok, Malformed(r))
		}
	}
}
