package site

import (
	"encoding/json"
	"net/http"

	"github.com/affordances-go/affordances/internal/respond"
	"github.com/affordances-go/affordances/protocol"
)

// Index returns the site index as this request's caller sees it: actions
// hidden from the caller by their visibility predicate are left out.
func (s *Site) Index(r *Request) protocol.SiteIndex {
	idx := protocol.SiteIndex{
		V:      protocol.Version,
		Name:   s.opts.Name,
		Routes: make([]protocol.IndexRoute, 0, len(s.pages)),
		Auth:   s.opts.AuthModes,
		// Every site takes idempotency keys (in memory by default).
		Extensions: []string{protocol.ExtensionIdempotency, protocol.ExtensionMarkdown},
	}
	if s.needsApprovals() {
		idx.Extensions = append(idx.Extensions, protocol.ExtensionApprovals)
	}
	if s.opts.Grants.Page != "" {
		idx.Extensions = append(idx.Extensions, protocol.ExtensionGrants)
		scopes := s.opts.Grants.Scopes
		if scopes == nil {
			scopes = s.scopes()
		}
		idx.Grants = &protocol.Grants{Page: s.opts.Grants.Page, Standing: s.opts.Grants.StandingActions, Scopes: scopes}
	}
	for _, l := range s.listings {
		if l.Index != nil {
			l.Index(&idx)
		}
	}
	for _, p := range s.pages {
		ir := protocol.IndexRoute{Route: p.route, Description: p.opts.Description,
			Actions: make([]protocol.ActionSummary, 0, len(p.actions))}
		for _, a := range p.actions {
			if a.listed(r) && a.cookiesKept(r) {
				ir.Actions = append(ir.Actions, a.summary)
			}
		}
		idx.Routes = append(idx.Routes, ir)
	}
	return idx
}

// serveIndex answers GET and HEAD of /.well-known/affordances.json.
func (s *Site) serveIndex(w http.ResponseWriter, hr *http.Request) {
	if hr.Method != http.MethodGet && hr.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	r, e := s.authenticate(hr)
	if e != nil {
		writeFailure(w, hr, e)
		return
	}
	b, err := json.Marshal(s.Index(r))
	if err != nil {
		s.opts.Logger.ErrorContext(hr.Context(), "affordances: encoding site index", "err", err)
		writeFailure(w, hr, newInternalError())
		return
	}
	respond.Document(w, hr, http.StatusOK, b)
}

// scopes are the names of the site's actions, once each, in the order of
// their registration.
func (s *Site) scopes() []string {
	out := []string{}
	seen := map[string]bool{}
	for _, p := range s.pages {
		for _, a := range p.actions {
			if !seen[a.meta.Name] {
				seen[a.meta.Name] = true
				out = append(out, a.meta.Name)
			}
		}
	}
	return out
}

// needsApprovals reports whether some action of the site has approval.
func (s *Site) needsApprovals() bool {
	for _, p := range s.pages {
		for _, a := range p.actions {
			if a.summary.Approval {
				return true
			}
		}
	}
	return false
}
