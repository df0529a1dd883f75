package mcp

import (
	"crypto/tls"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/auth"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The request's address, host and TLS state reach a tool call as a value,
// and the request the SDK serves is the client's own: its credentials
// unchanged, no header added.
func TestWithCaller_CarriesThePeerNotAHeader(t *testing.T) {
	for _, bearer := range []string{"", "Bearer agent-token"} {
		var got *http.Request
		h := withCaller(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { got = r }))
		r := httptest.NewRequest("POST", "https://shop.example/mcp", nil)
		r.RemoteAddr, r.TLS = "198.51.100.7:4242", &tls.ConnectionState{}
		if bearer != "" {
			r.Header.Set("Authorization", bearer)
		}
		h.ServeHTTP(httptest.NewRecorder(), r)
		if got == nil {
			t.Fatal("the handler was not called")
		}
		if got.Header.Get("Authorization") != bearer || len(got.Header) != len(r.Header) {
			t.Errorf("headers changed: %v", got.Header)
		}
		info := auth.TokenInfoFromContext(got.Context())
		if info == nil {
			t.Fatal("no token info in the context")
		}
		// What a tool handler rebuilds from it.
		hr := callerRequest(&sdk.CallToolRequest{Extra: &sdk.RequestExtra{TokenInfo: info, Header: got.Header}})
		if hr.RemoteAddr != "198.51.100.7:4242" || hr.Host != "shop.example" || hr.TLS == nil || hr.Header.Get("Authorization") != bearer {
			t.Errorf("bearer %q: the site sees %s %s tls=%v %v", bearer, hr.RemoteAddr, hr.Host, hr.TLS != nil, hr.Header)
		}
	}
}
