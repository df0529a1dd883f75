package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/affordances-go/affordances/protocol"
)

// TestBookshelf_SameURLServesHTMLAndAGraph runs the example over a real
// loopback connection, as a newcomer's curl would.
func TestBookshelf_SameURLServesHTMLAndAGraph(t *testing.T) {
	srv := httptest.NewServer(newSite())
	defer srv.Close()
	get := func(accept string) (*http.Response, string) {
		req, _ := http.NewRequest("GET", srv.URL+"/books/dune", nil)
		if accept != "" {
			req.Header.Set("Accept", accept)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res, string(b)
	}
	res, body := get("text/html")
	if !strings.Contains(body, "<h1>Dune</h1>") || res.Header.Get("Link") != `<?affordances=1>; rel="affordances"` {
		t.Errorf("HTML: %v %s", res.Header, body)
	}
	res, body = get(protocol.MediaType)
	if res.Header.Get("Content-Type") != protocol.MediaType || !strings.Contains(body, `"title":"Dune"`) {
		t.Errorf("graph: %v %s", res.Header, body)
	}
}
