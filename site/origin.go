package site

import (
	"net/http"

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

// from is where a call comes from, as its door read it from the request,
// once: the client's address and what the request says of its origin.
// The pipeline applies the Origin rule and the address limits to this,
// never to a request's headers.
type from struct {
	addr     string // the client's address (Site.ClientAddr)
	origin   peer.Origin
	navigate bool // a browser's navigation, or a client that does not say (see navigation)
}

// fromOf reads where a request comes from.
func (s *Site) fromOf(r *http.Request) from {
	return from{addr: s.clientAddr(r), origin: peer.OriginOf(r, peer.HTTPS(r, s.opts.Security.TrustedProxies)), navigate: navigation(r)}
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
