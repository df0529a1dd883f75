package site

import (
	"net"
	"net/http"
	"net/url"
	"strings"
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

// clientAddr is the address that keys anonymous callers' rate limits.
func (s *Site) clientAddr(r *http.Request) string {
	if s.opts.ClientAddr != nil {
		return s.opts.ClientAddr(r)
	}
	if h, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
		return h
	}
	return r.RemoteAddr
}
