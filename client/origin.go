package client

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// ErrCrossOrigin is wrapped by the error of a client with a bearer token
// that was sent to another origin than the page's: an HTTP redirect, a
// delta's redirect, or an approval page. The token goes only to the
// origin of the page it was used on; the client refuses rather than send
// it, or follow without it, on a server's word.
var ErrCrossOrigin = errors.New("affordances: refused to take the bearer token to another origin")

// sameOriginRedirects returns a copy of hc that follows HTTP redirects
// only within the origin of the first request, then as hc would.
func sameOriginRedirects(hc *http.Client) *http.Client {
	c := *hc
	next := hc.CheckRedirect
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if origin(req.URL) != origin(via[0].URL) {
			return fmt.Errorf("%w: a redirect from %s to %s", ErrCrossOrigin, origin(via[0].URL), origin(req.URL))
		}
		if next != nil {
			return next(req, via)
		}
		if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		return nil
	}
	return &c
}

// origin is a URL's scheme://host[:port], in lower case.
func origin(u *url.URL) string {
	return strings.ToLower(u.Scheme) + "://" + strings.ToLower(u.Host)
}

// sameOrigin reports whether ref, resolved against base, is on base's
// origin.
func sameOrigin(base, ref string) bool {
	b, err1 := url.Parse(base)
	r, err2 := url.Parse(ref)
	if err1 != nil || err2 != nil {
		return false
	}
	return origin(b) == origin(b.ResolveReference(r))
}
