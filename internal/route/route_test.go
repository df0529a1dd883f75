package route

import "testing"

func TestParse_Match(t *testing.T) {
	for _, c := range []struct {
		route string
		path  string
		want  bool
	}{
		{"/", "/", true},
		{"/", "/x", false},
		{"/cart", "/cart", true},
		{"/cart", "/cart?x=1", true},
		{"/cart", "/cartx", false},
		{"/products/[slug]", "/products/tee", true},
		{"/products/[slug]", "/products/tee?colour=black", true},
		{"/products/[slug]", "/products/", false},
		{"/products/[slug]", "/products/a/b", false},
		{"/docs/[...path]", "/docs/a/b/c", true},
		{"/docs/[...path]", "/docs/", false},
		{"/a.b/[x]", "/aXb/1", false}, // the dot is a dot
	} {
		if got := MustParse(c.route).Match(c.path); got != c.want {
			t.Errorf("%s matches %s: %v, want %v", c.route, c.path, got, c.want)
		}
	}
}

func TestParse_Refuses(t *testing.T) {
	for _, s := range []string{"/a/[", "/a/]", "/a/[]", "/a/[...]", "/a/]b[c]"} {
		if _, err := Parse(s); err == nil {
			t.Errorf("%q parsed", s)
		}
	}
}

func TestQualifierAndParams(t *testing.T) {
	for _, c := range []struct {
		route, words string
		params       bool
	}{{"/", "home", false}, {"/products/[slug]", "productsBySlug", true}, {"/docs/[...path]", "docsByPath", true},
		{"/account/orders", "accountOrders", false}, {"/dials", "dials", false}, {"/dials/new", "dialsNew", false},
		{"/gift-cards/[card_id]/redeem", "giftCardsByCardIdRedeem", true}, {"/Éte/été", "éteÉté", false}} {
		r := MustParse(c.route)
		if r.Qualifier() != c.words || r.HasParams() != c.params || r.String() != c.route {
			t.Errorf("%s: qualifier %q params %v", c.route, r.Qualifier(), r.HasParams())
		}
	}
}

func TestFromPattern(t *testing.T) {
	for in, want := range map[string]string{
		"/products/{slug}": "/products/[slug]",
		"/docs/{path...}":  "/docs/[...path]",
		"/{$}":             "/",
		"/a/{x}/b/{y...}":  "/a/[x]/b/[...y]",
	} {
		if got, err := FromPattern(in); err != nil || got != want {
			t.Errorf("%s: %q, %v", in, got, err)
		}
	}
	if _, err := FromPattern("/a/{x"); err == nil {
		t.Error("an unclosed { was accepted")
	}
}

func TestPathValues(t *testing.T) {
	for _, c := range []struct{ pattern, path, want string }{
		{"/{$}", "/", ""},
		{"/products/{slug}", "/products/tee", "slug=tee;"},
		{"/products/{slug}", "/products/a%2Fb%20c", "slug=a/b c;"},
		{"/products/{slug}/reviews/{$}", "/products/tee/reviews/", "slug=tee;"},
		{"/a/{x}/b/{y}", "/a/1/b/2", "x=1;y=2;"},
		{"/files/{rest...}", "/files/a/b%20c/d", "rest=a/b c/d;"},
		{"/files/{rest...}", "/files/", "rest=;"},
	} {
		got := ""
		if !PathValues(c.pattern, c.path, func(n, v string) { got += n + "=" + v + ";" }) {
			t.Errorf("%s %s: not matched", c.pattern, c.path)
		}
		if got != c.want {
			t.Errorf("%s %s: %q, want %q", c.pattern, c.path, got, c.want)
		}
	}
	if PathValues("/p/{x}", "/p/%zz", func(string, string) {}) {
		t.Error("a segment that does not unescape was taken")
	}
}

func TestLastSegment(t *testing.T) {
	for in, want := range map[string]string{
		"ab12": "ab12", "/approvals/ab12": "ab12", "https://shop.example/approvals/ab12/": "ab12", "": "", "/": "",
	} {
		if got := LastSegment(in); got != want {
			t.Errorf("LastSegment(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestFill(t *testing.T) {
	for in, want := range map[string]string{
		"/products/[slug]": "/products/x", "/a/[b]/c/[...rest]": "/a/x/c/x", "/": "/",
	} {
		r := MustParse(in)
		if got := r.Fill("x"); got != want || !r.Match(got) {
			t.Errorf("Fill(%q) = %q, want %q", in, got, want)
		}
	}
}
