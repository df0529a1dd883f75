package sitetest

import (
	"net/http"
	"net/http/httptest"
)

// Transport returns an http.RoundTripper that answers every request with
// h, in process, for code under test that takes an *http.Client, such as
// an agent built on package client:
//
//	hc := &http.Client{Transport: sitetest.Transport(mySite), Jar: jar}
//
// Requests keep their URL's host, so any base URL works
// (http://example.com is a good one); the remote address the site sees is
// 192.0.2.1, a documentation address.
func Transport(h http.Handler) http.RoundTripper { return roundTripper{h} }

type roundTripper struct{ h http.Handler }

func (rt roundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	r := req.Clone(req.Context())
	if r.Body == nil {
		r.Body = http.NoBody
	}
	r.RequestURI = req.URL.RequestURI()
	r.RemoteAddr = "192.0.2.1:40000"
	if r.Host == "" {
		r.Host = req.URL.Host
	}
	w := httptest.NewRecorder()
	rt.h.ServeHTTP(w, r)
	res := w.Result()
	res.Request = req
	return res, nil
}
