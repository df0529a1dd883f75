package site

import (
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"

	"github.com/affordances-go/affordances/protocol"
)

// normalizeOrigin returns an origin as scheme://host[:port] in lower case,
// without a default port, or false when s is not an http(s) origin.
func normalizeOrigin(s string) (string, bool) {
	u, err := url.Parse(s)
	if err != nil || u.Host == "" || u.User != nil || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
		return "", false
	}
	scheme := strings.ToLower(u.Scheme)
	if scheme != "http" && scheme != "https" {
		return "", false
	}
	return scheme + "://" + hostPort(scheme, u.Host), true
}

// hostPort lower-cases a host and drops the scheme's default port.
func hostPort(scheme, host string) string {
	host = strings.ToLower(host)
	if h, port, err := net.SplitHostPort(host); err == nil {
		if (scheme == "http" && port == "80") || (scheme == "https" && port == "443") {
			if strings.Contains(h, ":") {
				return "[" + h + "]"
			}
			return h
		}
	}
	return host
}

// originAllowed applies the Origin rule: the request's Origin must be one
// of the site's origins, by default the request's own. A missing Origin,
// "null", or any other scheme, host or port fails.
func (s *Site) originAllowed(r *http.Request) bool {
	o := r.Header.Values("Origin")
	if len(o) != 1 {
		return false
	}
	got, ok := normalizeOrigin(o[0])
	if !ok {
		return false
	}
	if len(s.origins) > 0 {
		for _, allowed := range s.origins {
			if got == allowed {
				return true
			}
		}
		return false
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return got == scheme+"://"+hostPort(scheme, r.Host)
}

// ClientAddr returns the client's address as the site sees it
// (Options.ClientAddr, by default the host of the connection's address),
// for a site's own limits, such as failed sign-ins per account and
// address.
func (s *Site) ClientAddr(r *http.Request) string { return s.clientAddr(r) }

// clientAddr is the address that keys anonymous callers' rate limits.
func (s *Site) clientAddr(r *http.Request) string {
	if s.opts.ClientAddr != nil {
		return s.opts.ClientAddr(r)
	}
	host := r.RemoteAddr
	if h, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
		host = h
	}
	if a, err := netip.ParseAddr(host); err != nil || !s.trusted(a) {
		return host
	}
	// From the right: the hops our proxies added, until one they did not.
	var hops []string
	for _, v := range r.Header.Values("X-Forwarded-For") {
		for _, h := range strings.Split(v, ",") {
			hops = append(hops, strings.TrimSpace(h))
		}
	}
	for i := len(hops) - 1; i >= 0; i-- {
		a, err := netip.ParseAddr(hops[i])
		if err != nil {
			return host // a hop that is no address: trust nothing before it
		}
		if !s.trusted(a) {
			return a.Unmap().String()
		}
	}
	return host
}

// trusted reports whether an address is one of the site's proxies.
func (s *Site) trusted(a netip.Addr) bool {
	a = a.Unmap()
	for _, p := range s.opts.TrustedProxies {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// checkOrigin is the Origin rule of every door that runs calls, for the
// caller the site found. A bearer call is exempt: a browser never sends
// the token by itself. Any other call is refused (403) when its Origin is
// present and is not one of the site's, or when the browser says it comes
// from another site (Sec-Fetch-Site: cross-site), whether or not it
// carries a cookie: a cross-site form must not sign a browser in or up
// (login CSRF). A call that rides on a cookie must carry the site's
// Origin.
func (s *Site) checkOrigin(r *http.Request, c Caller) *Error {
	if c.Mode == protocol.AuthBearer {
		return nil
	}
	_, hasOrigin := r.Header["Origin"]
	crossSite := strings.EqualFold(r.Header.Get("Sec-Fetch-Site"), "cross-site")
	allowed := hasOrigin && s.originAllowed(r)
	switch {
	case c.Mode == protocol.AuthCookie && (!allowed || crossSite):
		return newError(protocol.CodeUnauthorized,
			"a call authenticated by cookie must carry this site's Origin header").withStatus(http.StatusForbidden)
	case crossSite || (hasOrigin && !allowed):
		return newError(protocol.CodeUnauthorized, "a call from another site is refused").withStatus(http.StatusForbidden)
	}
	return nil
}

// CheckOrigin applies the site's Origin rule to a request of another door
// (the MCP endpoint), for the caller the site finds: nil, or an [*Error]
// (unauthorized, 403; or 401 for a rejected bearer token). Calls through
// [Site.Execute] are checked by the pipeline already; a door checks its
// own requests with it before it reads anything for the caller.
func (s *Site) CheckOrigin(hr *http.Request) error {
	r, e := s.authenticate(hr)
	if e != nil {
		return e
	}
	if e := s.checkOrigin(hr, r.Caller); e != nil {
		return e
	}
	return nil
}
