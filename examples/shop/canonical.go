package main

import (
	"net"
	"net/http"
	"net/netip"
)

// localOrigin is the origin the shop is opened at in development, when
// it listens on a loopback address and no -origins are given:
// http://localhost:PORT, the one origin passkeys accept (a passkey belongs
// to a domain, never to 127.0.0.1). "" for any other address.
func localOrigin(addr string, origins []string) string {
	if len(origins) > 0 {
		return ""
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return ""
	}
	if ip, err := netip.ParseAddr(host); err != nil || !ip.IsLoopback() {
		return ""
	}
	return "http://localhost:" + port
}

// toLocalhost sends a browser's navigation that reached the shop by its
// loopback address (http://127.0.0.1:8080/approvals/…, a link an agent
// printed) to the same path on origin (http://localhost:8080), so that
// the person has one session, one set of passkeys and one origin for
// every link. Only navigations move (Sec-Fetch-Mode: navigate, GET or
// HEAD): an agent's JSON, curl and scripts are answered where they ask.
func toLocalhost(origin string, next http.Handler) http.Handler {
	if origin == "" {
		return next
	}
	host := origin[len("http://"):]
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Host != host && (r.Method == http.MethodGet || r.Method == http.MethodHead) &&
			r.Header.Get("Sec-Fetch-Mode") == "navigate" {
			http.Redirect(w, r, origin+r.URL.RequestURI(), http.StatusFound)
			return
		}
		next.ServeHTTP(w, r)
	})
}
