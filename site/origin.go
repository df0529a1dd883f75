package site

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/affordances-go/affordances/internal/peer"
	"github.com/affordances-go/affordances/protocol"
)

// ClientAddr returns the client's address as the site sees it
// (Options.Security.ClientAddr, by default the host of the connection's address),
// for a site's own limits, such as failed sign-ins per account and
// address.
func (s *Site) ClientAddr(r *http.Request) string { return s.clientAddr(r) }

// clientAddr is the address that keys anonymous callers' rate limits.
func (s *Site) clientAddr(r *http.Request) string {
	if s.opts.Security.ClientAddr != nil {
		return s.opts.Security.ClientAddr(r)
	}
	return peer.ClientAddr(r, s.opts.Security.TrustedProxies)
}

// provenance is where a call comes from, as its door read it from the
// request, once: the client's address and what the request says of its
// origin. The pipeline applies the Origin rule and the address limits to
// this, never to a request's headers.
type provenance struct {
	addr     string // the client's address (Site.ClientAddr)
	origin   peer.Origin
	navigate bool // a browser's navigation, or a client that does not say (see navigation)
}

// provenanceOf reads where a request comes from.
func (s *Site) provenanceOf(r *http.Request) provenance {
	return provenance{addr: s.clientAddr(r), origin: peer.OriginOf(r, peer.HTTPS(r, s.opts.Security.TrustedProxies)), navigate: navigation(r)}
}

// checkOrigin is the Origin rule of every door that runs calls, for the
// caller the site found. A bearer call is exempt: a browser never sends
// the token by itself. Any other call is refused (403) when its Origin is
// present and is not one of the site's, or when the browser says it comes
// from another site (Sec-Fetch-Site: cross-site), whether or not it
// carries a cookie: a cross-site form must not sign a browser in or up
// (login CSRF). A call that rides on a cookie must carry the site's
// Origin.
func (s *Site) checkOrigin(o peer.Origin, c Caller) *Error {
	if c.Mode == protocol.AuthBearer {
		return nil
	}
	allowed := o.Sent && o.Allowed(s.origins)
	switch {
	case c.Mode == protocol.AuthCookie && (!allowed || o.CrossSite):
		return newError(protocol.CodeUnauthorized,
			"a call authenticated by cookie must carry this site's Origin header").withStatus(http.StatusForbidden)
	case o.CrossSite || (o.Sent && !allowed):
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
	if e := s.checkOrigin(peer.OriginOf(hr, peer.HTTPS(hr, s.opts.Security.TrustedProxies)), r.Caller); e != nil {
		return e
	}
	return nil
}

// BypassCrossOrigin composes an application's [http.CrossOriginProtection]
// with the site's Origin rule, for an application that puts cop in front
// of everything (cop.Handler(s.Wrap(app)), as a framework's global
// middleware does): a POST to one of the site's pages, those registered
// already and those registered later, bypasses cop, so that the site's
// own rule decides there. That rule is stricter for a cookie (a call or a
// form post must carry an Origin of Security.Origins, where cop lets a
// request with neither Origin nor Sec-Fetch-Site through) and exempts a
// bearer call, as the protocol says, where cop refuses a browser's
// cross-origin request whatever it carries. cop keeps guarding the
// application's routes and the extensions' doors. List the origins cop
// trusts (AddTrustedOrigin) in Security.Origins too.
//
// An application that can put cop around its own routes alone,
// s.Wrap(cop.Handler(app)), needs none of this.
func (s *Site) BypassCrossOrigin(cop *http.CrossOriginProtection) {
	if s.started.Load() {
		panic("site: BypassCrossOrigin after the site started serving")
	}
	for _, p := range s.pages {
		cop.AddInsecureBypassPattern(http.MethodPost + " " + p.pattern)
	}
	s.crossOrigin = append(s.crossOrigin, cop)
}

// Secure reports whether the browser reached the site over HTTPS: a TLS
// connection, X-Forwarded-Proto: https from one of Options.Security.TrustedProxies
// (a proxy that ends TLS; nobody else's header is believed), or a site
// whose Options.Security.Origins are all https. Every cookie the site sets is
// Secure then, the ones actions set with [Request.SetCookie] included;
// an application's own cookies should follow it too.
func (s *Site) Secure(r *http.Request) bool {
	return s.httpsOrigins || peer.HTTPS(r, s.opts.Security.TrustedProxies)
}

// allHTTPS reports whether origins are all https (none: false).
func allHTTPS(origins []string) bool {
	for _, o := range origins {
		if !strings.HasPrefix(o, "https://") {
			return false
		}
	}
	return len(origins) > 0
}

// setHSTS adds Strict-Transport-Security to an answer over HTTPS, when
// the site asks for it (Options.Security.HSTS). Browsers ignore it over plain
// http, and a site must not send it there.
func (s *Site) setHSTS(w http.ResponseWriter, r *http.Request) {
	if s.opts.Security.HSTS > 0 && s.Secure(r) {
		w.Header().Set("Strict-Transport-Security", "max-age="+strconv.FormatInt(int64(s.opts.Security.HSTS.Seconds()), 10))
	}
}

// Origin is the site's own origin for r: its first configured origin,
// else the scheme and host r reached. A proof of the person binds it.
func (s *Site) Origin(r *http.Request) string {
	if len(s.origins) > 0 {
		return s.origins[0]
	}
	scheme := "http"
	if s.Secure(r) {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}
