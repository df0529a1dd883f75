package mcp

import (
	"context"
	"crypto/tls"
	"net/http"
	"net/url"

	"github.com/modelcontextprotocol/go-sdk/auth"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/affordances-go/affordances/site"
)

// peer is what the site needs of an MCP request beside its headers, and
// what the SDK does not hand a tool: the client's address (the rate limit
// of an anonymous caller), the host and the TLS state (the Origin rule).
type peer struct {
	addr, host string
	tls        bool
}

// peerKey names the peer in the request's token information.
const peerKey = "affordances.peer"

// withCaller carries each request's peer to its tool calls as a value,
// in the one place the SDK hands on from an HTTP request to a tool
// handler: the token information of the request's context
// (sdk.RequestExtra.TokenInfo). The SDK sets that from its bearer-token
// middleware only, so the middleware is run with a verifier that returns
// the peer, on a copy of the request that has a placeholder token when
// the request has none; the request served is the original one, with that
// context. The caller's real credentials are read by the site's
// authenticator, as for every door.
func withCaller(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := peer{addr: r.RemoteAddr, host: r.Host, tls: r.TLS != nil}
		verify := func(context.Context, string, *http.Request) (*auth.TokenInfo, error) {
			return &auth.TokenInfo{Extra: map[string]any{peerKey: p}}, nil
		}
		carry := auth.RequireBearerToken(verify, &auth.RequireBearerTokenOptions{AllowMissingExpiration: true})
		probe := r.Clone(r.Context())
		probe.Header.Set("Authorization", "Bearer peer")
		carry(http.HandlerFunc(func(_ http.ResponseWriter, withInfo *http.Request) {
			next.ServeHTTP(w, r.WithContext(withInfo.Context()))
		})).ServeHTTP(w, probe)
	})
}

// caller is the request the site sees for an MCP request handled with
// ctx: the caller's credentials and address, marked as coming through a
// door that keeps no cookies an action sets (site.WithoutCookies).
func caller(ctx context.Context, req sdk.Request) *http.Request {
	return site.WithoutCookies(callerRequest(req).WithContext(ctx))
}

// callerRequest rebuilds, from an MCP request, the HTTP request the site
// authenticates: its credentials and Origin (its headers), its address,
// host and TLS state (its peer).
func callerRequest(req sdk.Request) *http.Request {
	h := http.Header{}
	var p peer
	if ex := req.GetExtra(); ex != nil {
		if ex.Header != nil {
			h = ex.Header.Clone()
		}
		if ex.TokenInfo != nil {
			p, _ = ex.TokenInfo.Extra[peerKey].(peer)
		}
	}
	hr := &http.Request{Method: http.MethodPost, URL: &url.URL{Path: "/"}, Header: h,
		RemoteAddr: p.addr, Host: p.host, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1}
	if p.tls {
		hr.TLS = &tls.ConnectionState{}
	}
	// The SDK's own headers are not the caller's.
	h.Del("Content-Type")
	return hr
}
