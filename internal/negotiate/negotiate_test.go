package negotiate

import (
	"net/http/httptest"
	"testing"
)

func TestDoors(t *testing.T) {
	for _, c := range []struct {
		accept, target  string
		graph, markdown bool
	}{
		{"application/vnd.affordances+json", "/", true, false},
		{"application/vnd.affordances+json;q=0", "/", false, false},
		{"text/html,*/*;q=0.8", "/?affordances=1", true, false},
		{"*/*", "/?x=1&%61ffordances=1", true, false},
		{"application/json", "/", false, false},
		{"text/markdown", "/", false, true},
		{"text/markdown, text/html", "/", false, true},
		{"text/html, text/markdown", "/", false, false},
		{"text/html;q=0.5, text/markdown;q=0.9", "/", false, true},
		{"text/html,application/xhtml+xml,*/*;q=0.8", "/", false, false},
		{"text/markdown;q=0", "/", false, false},
	} {
		r := httptest.NewRequest("GET", c.target, nil)
		r.Header.Set("Accept", c.accept)
		if g := Graph(r); g != c.graph {
			t.Errorf("Graph(%q, %s) = %v", c.accept, c.target, g)
		}
		if m := Markdown(r); m != c.markdown {
			t.Errorf("Markdown(%q) = %v", c.accept, m)
		}
	}
}

func TestWithoutQuery(t *testing.T) {
	r := httptest.NewRequest("GET", "/p?a=1&affordances=1&b=2", nil)
	if got := WithoutQuery(r).URL.RawQuery; got != "a=1&b=2" {
		t.Errorf("query %q", got)
	}
	if r.URL.RawQuery != "a=1&affordances=1&b=2" {
		t.Error("the request itself changed")
	}
	plain := httptest.NewRequest("GET", "/p?a=1", nil)
	if WithoutQuery(plain) != plain {
		t.Error("a query without the alias is copied")
	}
}

func TestCall(t *testing.T) {
	for ct, want := range map[string]bool{
		"application/vnd.affordances+json":                true,
		"application/vnd.affordances+json; charset=utf-8": true,
		"application/json":                                false,
		"":                                                false,
	} {
		r := httptest.NewRequest("POST", "/", nil)
		r.Header.Set("Content-Type", ct)
		if Call(r) != want {
			t.Errorf("Call(%q) = %v", ct, !want)
		}
	}
}

// actions=tools on the text/markdown entry asks for the Markdown of a
// reader whose actions are tools; it never makes Markdown preferred.
func TestMarkdownForTools(t *testing.T) {
	for _, c := range []struct {
		accept          string
		markdown, tools bool
	}{
		{"text/markdown; actions=tools", true, true},
		{`text/markdown;q=0.9;actions="tools", text/html;q=0.5`, true, true},
		{"text/markdown; ACTIONS=Tools", true, true},
		{"text/markdown", true, false},
		{"text/markdown; actions=http", true, false},
		{"text/html, text/markdown; actions=tools", false, true},
		{"text/plain; actions=tools, text/markdown", true, false},
	} {
		r := httptest.NewRequest("GET", "/", nil)
		r.Header.Set("Accept", c.accept)
		if m, tl := Markdown(r), MarkdownForTools(r); m != c.markdown || tl != c.tools {
			t.Errorf("Accept %q: Markdown %v, MarkdownForTools %v; want %v, %v", c.accept, m, tl, c.markdown, c.tools)
		}
	}
}
