package site

import "net/http"

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
