package mcp

import (
	"context"
	"crypto/tls"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/auth"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The client's own request reaches a tool call as a value, and the
// request the SDK serves is the client's own too: its credentials
// unchanged, no header added.
func TestWithCaller_CarriesTheRequestNotAHeader(t *testing.T) {
	for _, bearer := range []string{"", "Bearer agent-token"} {
		var got *http.Request
		h := withCaller(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { got = r }))
		r := httptest.NewRequest("POST", "https://shop.example/mcp", nil)
		r.RemoteAddr, r.TLS = "198.51.100.7:4242", &tls.ConnectionState{}
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Origin", "https://shop.example")
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
		// What a tool handler hands the site.
		ctx := context.WithValue(context.Background(), testKey{}, 1)
		hr := caller(ctx, &sdk.CallToolRequest{Extra: &sdk.RequestExtra{TokenInfo: info, Header: got.Header}})
		if hr.RemoteAddr != "198.51.100.7:4242" || hr.Host != "shop.example" || hr.TLS == nil ||
			hr.Header.Get("Authorization") != bearer || hr.Header.Get("Origin") != "https://shop.example" {
			t.Errorf("bearer %q: the site sees %s %s tls=%v %v", bearer, hr.RemoteAddr, hr.Host, hr.TLS != nil, hr.Header)
		}
		if hr.Header.Get("Content-Type") != "" || hr.Context().Value(testKey{}) != 1 || hr.Body != http.NoBody {
			t.Errorf("the JSON-RPC's content type or body, or another context: %v", hr.Header)
		}
	}
}

// testKey marks the tool call's context in the test.
type testKey struct{}
