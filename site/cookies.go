package site

import (
	"context"
	"net/http"
)

// noCookiesKey marks a request that came through a door that cannot keep
// the cookies an action sets.
type noCookiesKey struct{}

// WithoutCookies marks hr as coming through a door that cannot keep the
// cookies an action sets, such as an MCP endpoint whose clients hold no
// cookie jar. The graphs, index and calls of such a request say so to the
// site's code ([Request.KeepsCookies]), so that an action whose effect
// lives in a cookie (signing in, a guest's cart) can hide itself or be
// unavailable, with a reason that says how to authenticate instead, rather
// than run and leave its effect behind where nobody can reach it.
func WithoutCookies(hr *http.Request) *http.Request {
	return hr.WithContext(context.WithValue(hr.Context(), noCookiesKey{}, true))
}

// KeepsCookies reports whether the caller's door keeps the cookies an
// action sets: true for a browser's or an agent's own HTTP requests, false
// for a request marked with [WithoutCookies].
func (r *Request) KeepsCookies() bool {
	no, _ := r.Context().Value(noCookiesKey{}).(bool)
	return !no
}
