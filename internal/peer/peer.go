// Package peer reads what a request says of where it comes from: its
// Origin against the site's, and the client's address behind trusted
// proxies. Package site applies both as policy (the Origin rule, the
// rate limit of anonymous callers).
package peer

import (
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
)

// NormalizeOrigin returns an origin as scheme://host[:port] in lower case,
// without a default port, or false when s is not an http(s) origin.
func NormalizeOrigin(s string) (string, bool) {
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

// Origin is what a request says of the page that sent it, and where it
// arrived, read once from the request so that the Origin rule is decided
// on data, whichever door the call came through.
type Origin struct {
	// Sent reports that the request had an Origin header, whatever it
	// held ("null" included).
	Sent bool
	// Value is the Origin header as sent; "" unless there was exactly
	// one.
	Value string
	// Host is the host (and port) the request reached, and TLS whether it
	// came over TLS: the site's own origin when it lists none.
	Host string
	TLS  bool
	// CrossSite reports that the browser said the request comes from
	// another site (Sec-Fetch-Site: cross-site).
	CrossSite bool
}

// OriginOf reads where a request says it comes from; tls is whether the
// browser reached the site over TLS (see HTTPS).
func OriginOf(r *http.Request, tls bool) Origin {
	vs := r.Header.Values("Origin")
	o := Origin{Sent: len(vs) > 0, Host: r.Host, TLS: tls,
		CrossSite: strings.EqualFold(r.Header.Get("Sec-Fetch-Site"), "cross-site")}
	if len(vs) == 1 {
		o.Value = vs[0]
	}
	return o
}

// Allowed applies the Origin rule: the Origin must be one of origins
// (normalised), or, when there are none, the one the request reached. A
// missing Origin, "null", or any other scheme, host or port fails.
func (o Origin) Allowed(origins []string) bool {
	got, ok := NormalizeOrigin(o.Value)
	if !ok {
		return false
	}
	if len(origins) == 0 {
		scheme := "http"
		if o.TLS {
			scheme = "https"
		}
		return got == scheme+"://"+hostPort(scheme, o.Host)
	}
	for _, allowed := range origins {
		if got == allowed {
			return true
		}
	}
	return false
}

// HTTPS reports whether the browser reached the site over TLS: the
// connection's own, or, on a connection from one of the trusted proxies,
// the last X-Forwarded-Proto value (what the nearest proxy said). Anyone
// else's header is not believed.
func HTTPS(r *http.Request, trusted []netip.Prefix) bool {
	if r.TLS != nil {
		return true
	}
	vs := r.Header.Values("X-Forwarded-Proto")
	if len(vs) == 0 || !fromTrusted(r, trusted) {
		return false
	}
	last := vs[len(vs)-1]
	if i := strings.LastIndexByte(last, ','); i >= 0 {
		last = last[i+1:]
	}
	return strings.EqualFold(strings.TrimSpace(last), "https")
}

// fromTrusted reports whether the connection comes from a trusted proxy.
func fromTrusted(r *http.Request, trusted []netip.Prefix) bool {
	host := r.RemoteAddr
	if h, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
		host = h
	}
	a, err := netip.ParseAddr(host)
	return err == nil && isTrusted(a, trusted)
}

// ClientAddr is the client's address: the connection's, or, when that is
// one of the trusted proxies, the last hop of X-Forwarded-For that no
// trusted proxy added.
func ClientAddr(r *http.Request, trusted []netip.Prefix) string {
	host := r.RemoteAddr
	if h, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
		host = h
	}
	if a, err := netip.ParseAddr(host); err != nil || !isTrusted(a, trusted) {
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
		if !isTrusted(a, trusted) {
			return a.Unmap().String()
		}
	}
	return host
}

// isTrusted reports whether an address is one of the proxies.
func isTrusted(a netip.Addr, trusted []netip.Prefix) bool {
	a = a.Unmap()
	for _, p := range trusted {
		if p.Contains(a) {
			return true
		}
	}
	return false
}
