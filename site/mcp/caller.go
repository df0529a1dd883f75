package mcp

import (
	"context"
	"crypto/tls"
	"net/http"
	"net/url"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/affordances-go/affordances/site"
)

// The SDK gives a tool handler the headers of the HTTP request, not its
// address, host or TLS state, which the site needs (the rate limit of an
// anonymous caller, the Origin rule). withCaller carries them in headers
// of its own, after removing any of the same names a client sent.
const (
	headerAddr = "X-Affordances-Mcp-Remote-Addr"
	headerHost = "X-Affordances-Mcp-Host"
	headerTLS  = "X-Affordances-Mcp-Tls"
)

func withCaller(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Header.Del(headerAddr)
		r.Header.Del(headerHost)
		r.Header.Del(headerTLS)
		r.Header.Set(headerAddr, r.RemoteAddr)
		r.Header.Set(headerHost, r.Host)
		if r.TLS != nil {
			r.Header.Set(headerTLS, "1")
		}
		next.ServeHTTP(w, r)
	})
}

// caller is the request the site sees for an MCP request handled with
// ctx: the caller's credentials and address, marked as coming through a
// door that keeps no cookies an action sets (site.WithoutCookies).
func caller(ctx context.Context, req sdk.Request) *http.Request {
	return site.WithoutCookies(callerRequest(req).WithContext(ctx))
}

// callerRequest rebuilds, from an MCP request, the HTTP request the site
// authenticates: its credentials, Origin, address, host and TLS state.
func callerRequest(req sdk.Request) *http.Request {
	h := http.Header{}
	if ex := req.GetExtra(); ex != nil && ex.Header != nil {
		h = ex.Header.Clone()
	}
	hr := &http.Request{Method: http.MethodPost, URL: &url.URL{Path: "/"}, Header: h,
		RemoteAddr: h.Get(headerAddr), Host: h.Get(headerHost), Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1}
	if h.Get(headerTLS) == "1" {
		hr.TLS = &tls.ConnectionState{}
	}
	for k := range h {
		if strings.HasPrefix(k, "X-Affordances-Mcp-") {
			h.Del(k)
		}
	}
	// The SDK's own headers are not the caller's.
	h.Del("Content-Type")
	return hr
}
