package mcp

import (
	"context"
	"net/http"
	"net/url"

	"github.com/modelcontextprotocol/go-sdk/auth"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/affordances-go/affordances/site"
)

// requestKey names the client's HTTP request in the token information of
// its tool calls.
const requestKey = "affordances.request"

// withCaller hands each MCP request's own HTTP request (its credentials,
// Origin, address, host and TLS state) to its tool calls as a value, in
// the one place the SDK carries something from an HTTP request to a tool
// handler: the token information of the request's context
// (sdk.RequestExtra.TokenInfo). The SDK sets that from its bearer-token
// middleware only, so the middleware is run with a verifier that returns
// the request, on a copy that has a placeholder token when the request
// has none; the request served is the original one, with that context.
// The site authenticates the request itself, as for every door: nothing
// is rebuilt or copied into headers.
func withCaller(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		own := r.Clone(r.Context())
		own.Body, own.ContentLength = http.NoBody, 0 // the SDK reads the body; the site never does
		own.Header.Del("Content-Type")               // the JSON-RPC's, not the caller's
		verify := func(context.Context, string, *http.Request) (*auth.TokenInfo, error) {
			return &auth.TokenInfo{Extra: map[string]any{requestKey: own}}, nil
		}
		carry := auth.RequireBearerToken(verify, &auth.RequireBearerTokenOptions{AllowMissingExpiration: true})
		probe := r.Clone(r.Context())
		probe.Header.Set("Authorization", "Bearer placeholder")
		carry(http.HandlerFunc(func(_ http.ResponseWriter, withInfo *http.Request) {
			next.ServeHTTP(w, r.WithContext(withInfo.Context()))
		})).ServeHTTP(w, probe)
	})
}

// caller is the request the site sees for an MCP request handled with
// ctx: the client's own HTTP request, marked as coming through a door
// that keeps no cookies an action sets (site.WithoutCookies). A request
// that did not come through Handler (an in-memory transport) is an
// anonymous caller with the headers the SDK has, if any.
func caller(ctx context.Context, req sdk.Request) *http.Request {
	var hr *http.Request
	ex := req.GetExtra()
	if ex != nil && ex.TokenInfo != nil {
		hr, _ = ex.TokenInfo.Extra[requestKey].(*http.Request)
	}
	if hr == nil {
		h := http.Header{}
		if ex != nil && ex.Header != nil {
			h = ex.Header.Clone()
			h.Del("Content-Type")
		}
		hr = &http.Request{Method: http.MethodPost, URL: &url.URL{Path: "/"}, Header: h,
			Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1, Body: http.NoBody}
	}
	return site.WithoutCookies(hr.WithContext(ctx))
}
