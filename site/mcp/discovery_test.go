package mcp_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/affordances-go/affordances/internal/wiretest"
	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site"
	"github.com/affordances-go/affordances/site/mcp"
	"github.com/affordances-go/affordances/site/sitetest"
)

// discoverySite is a small shop with an MCP endpoint, bearer tokens and
// a personal page.
func discoverySite(o site.DiscoveryOptions, mo ...mcp.Options) *site.Site {
	s := site.New(site.Options{Name: "Tee Shop", Discovery: o, AuthModes: []protocol.AuthMode{protocol.AuthCookie, protocol.AuthBearer},
		Security: site.SecurityOptions{Origins: []string{"https://shop.example"}}, // a shared cache may keep files of the public origin
		Auth: site.AuthFunc(func(r *http.Request) (site.Caller, error) {
			if tok, ok := site.BearerToken(r); ok && tok == "alice-token" {
				return site.Caller{ID: "tok:1", Account: "alice", Mode: protocol.AuthBearer, SignedIn: true}, nil
			}
			return site.Caller{}, nil
		})})
	s.Page("/", site.PageOptions{Description: "The catalogue"})
	product := s.Page("/products/{slug}", site.PageOptions{Description: "One product: sizes, stock and price"})
	site.Handle(product, site.Action{Name: "addToCart", Expose: protocol.ExposePublic, Description: "Put a size in the cart"},
		func(r *site.Request, in struct{}) (site.Done, error) { return site.Done{}, nil })
	account := s.Page("/account", site.PageOptions{Description: "Alice's secret account page"})
	site.Handle(account, site.Action{Name: "secretThing", Expose: protocol.ExposeSession, Visible: func(r *site.Request) bool { return r.Caller.SignedIn }},
		func(r *site.Request, in struct{}) (site.Done, error) { return site.Done{}, nil })
	var opts *mcp.Options
	if len(mo) > 0 {
		opts = &mo[0]
	}
	mcp.Mount(s, "/mcp", opts)
	return s
}

// The discovery files, as an agent on shop.example gets them: made from
// the index as anyone sees it, the same for a signed-in caller, and
// cacheable.
func TestDiscovery_FilesFromTheIndex(t *testing.T) {
	s := discoverySite(site.DiscoveryOptions{Queries: []string{"buy a black t-shirt in size M", "what sizes of the heavyweight tee are in stock"}})
	files := []struct{ path, golden, ctype string }{
		{site.LLMsTxtPath, "llms.txt", "text/markdown; charset=utf-8"},
		{site.AICatalogPath, "ai-catalog.json", site.AICatalogMediaType},
		{mcp.ServerCardPath, "mcp-server-card.json", mcp.ServerCardMediaType},
		{mcp.ServerCardAliasPath, "mcp-server-card.json", mcp.ServerCardMediaType},
	}
	for _, f := range files {
		get := func(token string) *httptest.ResponseRecorder {
			r := httptest.NewRequest("GET", "https://shop.example"+f.path, nil)
			if token != "" {
				r.Header.Set("Authorization", "Bearer "+token)
			}
			w := httptest.NewRecorder()
			s.ServeHTTP(w, r)
			return w
		}
		w := get("")
		if w.Code != 200 || w.Header().Get("Content-Type") != f.ctype || w.Header().Get("Cache-Control") != "public, max-age=300" {
			t.Fatalf("%s: %d %v", f.path, w.Code, w.Header())
		}
		if strings.HasSuffix(f.golden, ".json") {
			wiretest.Golden(t, f.golden, w.Body.Bytes())
		} else {
			wiretest.GoldenText(t, f.golden, w.Body.Bytes())
		}
		if signed := get("alice-token"); signed.Body.String() != w.Body.String() {
			t.Errorf("%s differs for a signed-in caller:\n%s", f.path, signed.Body)
		}
		if strings.Contains(w.Body.String(), "secretThing") {
			t.Errorf("%s lists an action only a signed-in caller sees", f.path)
		}
	}
}

// Pages with a graph link the catalog; robots.txt gets its Agentmap line;
// an option turns each file off, and without MCP there is no catalog nor
// card.
func TestDiscovery_LinksAndOptions(t *testing.T) {
	s := discoverySite(site.DiscoveryOptions{})
	app := http.NewServeMux()
	app.HandleFunc("GET /llms.txt", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("# the app's own")) })
	app.HandleFunc("GET /", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("<html><body>catalogue</body></html>")) })
	c := sitetest.New(t, s.Wrap(app))
	if links := c.Get("/").Header().Values("Link"); len(links) != 2 || links[1] != `</.well-known/ai-catalog.json>; rel="ai-catalog"` {
		t.Errorf("the page's Link headers: %q", links)
	}
	r := httptest.NewRequest("GET", "https://shop.example/robots.txt", nil)
	if got := s.RobotsLines(r); got != "Agentmap: https://shop.example/.well-known/ai-catalog.json\n" {
		t.Errorf("robots lines %q", got)
	}

	off := discoverySite(site.DiscoveryOptions{NoLLMsTxt: true, NoAICatalog: true}, mcp.Options{NoServerCard: true})
	c = sitetest.New(t, off.Wrap(app))
	if w := c.Get("/llms.txt"); w.Body.String() != "# the app's own" {
		t.Errorf("NoLLMsTxt: the app's file was shadowed: %s", w.Body)
	}
	for _, p := range []string{site.AICatalogPath, mcp.ServerCardPath} {
		if w := c.Get(p); strings.Contains(w.Body.String(), "specVersion") || strings.Contains(w.Body.String(), "remotes") {
			t.Errorf("%s when off: %d %s", p, w.Code, w.Body)
		}
	}
	if links := c.Get("/").Header().Values("Link"); len(links) != 1 {
		t.Errorf("a catalog link without a catalog: %q", links)
	}

	plain := site.New(site.Options{Name: "No MCP"})
	plain.Page("/", site.PageOptions{Description: "home"})
	c = sitetest.New(t, plain)
	if w := c.Get(site.AICatalogPath); w.Code != 404 {
		t.Errorf("a catalog without MCP: %d %s", w.Code, w.Body)
	}
	if w := c.Get(site.LLMsTxtPath); w.Code != 200 || !strings.HasPrefix(w.Body.String(), "# No MCP\n") {
		t.Errorf("llms.txt without MCP: %d %s", w.Code, w.Body)
	}
}

// A site that knows no public origin writes the discovery files' URLs
// from the request's Host: no shared cache may keep them, so that a
// request with another Host header cannot poison what everyone gets.
func TestDiscovery_WithoutOriginsNoSharedCache(t *testing.T) {
	s := site.New(site.Options{Name: "Tee Shop"})
	s.Page("/", site.PageOptions{Description: "The catalogue"})
	mcp.Mount(s, "/mcp", nil)
	for _, path := range []string{site.LLMsTxtPath, mcp.ServerCardPath} {
		r := httptest.NewRequest("GET", "https://evil.example"+path, nil)
		w := httptest.NewRecorder()
		s.ServeHTTP(w, r)
		if w.Code != 200 || w.Header().Get("Cache-Control") != "private, max-age=300" || !strings.Contains(w.Body.String(), "evil.example") {
			t.Errorf("%s: %d %v", path, w.Code, w.Header())
		}
	}
}
