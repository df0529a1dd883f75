package site

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/affordances-go/affordances/internal/peer"
)

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
