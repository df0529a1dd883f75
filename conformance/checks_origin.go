package conformance

// The origin.* checks: the Origin rule of cookie calls.

import (
	"context"
	"net/http"

	"github.com/affordances-go/affordances/protocol"
)

// anonymous are the header pairs of a request sent without the checker's
// credentials.
var anonymous = []string{"Authorization", "", "Cookie", ""}

func checkCookieOrigin(ctx context.Context, e *Env) Outcome {
	if e.cfg.Cookie == "" {
		return skip("needs a session cookie: --cookie or --cookie-jar")
	}
	p, a := e.probe(func(*page, *protocol.ActionDescriptor) bool { return true })
	if p == nil {
		return skip("no action with an object input was found")
	}
	other := "http://afford-check.invalid"
	scheme := "https"
	if e.base.Scheme == "https" {
		scheme = "http"
	}
	port := e.base.Scheme + "://" + e.base.Hostname() + ":1"
	for _, origin := range []string{"", "null", other, scheme + "://" + e.base.Host, port} {
		res, err := e.post(ctx, p.url, invalidCall(a.Name), "Authorization", "", "Cookie", e.cfg.Cookie, "Origin", origin)
		if err != nil {
			return fail("%v", err)
		}
		if ok, msg := res.failedWith(http.StatusForbidden, protocol.CodeUnauthorized); !ok {
			shown := origin
			if shown == "" {
				shown = "(none)"
			}
			return fail("%s %s with a cookie and Origin %s: %s", p.url, a.Name, shown, msg)
		}
	}
	return pass("%s: 403 without Origin, with null, another host, scheme or port", a.Name)
}

func checkBearerExempt(ctx context.Context, e *Env) Outcome {
	if e.cfg.Token == "" {
		return skip("needs a bearer token: --token")
	}
	p, a := e.probe(func(*page, *protocol.ActionDescriptor) bool { return true })
	if p == nil {
		return skip("no action with an object input was found")
	}
	res, err := e.post(ctx, p.url, invalidCall(a.Name), "Authorization", e.bearer(), "Origin", "http://afford-check.invalid")
	if err != nil {
		return fail("%v", err)
	}
	if res.status == http.StatusForbidden {
		return fail("%s %s: a bearer call from another Origin answered 403", p.url, a.Name)
	}
	return pass("%s: %d, not 403", a.Name, res.status)
}
