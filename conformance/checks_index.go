package conformance

// The errors.not-found, index.* and schema.graphs checks: the site index,
// and the shape of every document found.

import (
	"context"
	"net/http"
	"strings"

	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/schemas"
)

func checkNotFound(ctx context.Context, e *Env) Outcome {
	target := e.abs("/afford-check-no-such-page-7f3a/")
	res, err := e.do(ctx, http.MethodGet, target, nil, "Accept", protocol.MediaType)
	if err != nil {
		return fail("%v", err)
	}
	if ok, msg := res.failedWith(http.StatusNotFound, protocol.CodeNotFound); !ok {
		return fail("%s: %s", target, msg)
	}
	if err := schemas.Validate(schemas.Delta, res.body); err != nil {
		return fail("the delta does not satisfy the delta schema: %v", err)
	}
	return pass("404 not_found")
}

func checkIndex(ctx context.Context, e *Env) Outcome {
	r := e.indexResp
	if r == nil {
		return fail("the index could not be fetched")
	}
	if r.status != http.StatusOK {
		return fail("status %d", r.status)
	}
	if err := schemas.Validate(schemas.SiteIndex, r.body); err != nil {
		return fail("the index does not satisfy the site index schema: %v", err)
	}
	if e.index == nil {
		return fail("the index could not be read")
	}
	if err := protocol.CheckVersion(e.index.V); err != nil {
		return fail("%v", err)
	}
	return pass("%d routes", len(e.index.Routes))
}

func checkIndexMatches(ctx context.Context, e *Env) Outcome {
	if e.index == nil {
		return skip("no readable index (see index.served)")
	}
	if o, ok := needPages(e); !ok {
		return o
	}
	routes := map[string][]string{}
	for _, r := range e.index.Routes {
		names := []string{}
		for _, a := range r.Actions {
			names = append(names, a.Name)
		}
		routes[r.Route] = names
	}
	for _, p := range e.pages {
		want, ok := routes[p.graph.Route]
		if !ok {
			return fail("%s: route %s is not in the index", p.url, p.graph.Route)
		}
		got := []string{}
		for _, a := range p.graph.Actions {
			got = append(got, a.Name)
		}
		if !sameSet(got, want) {
			return fail("%s: the graph lists actions %v, the index %v", p.url, got, want)
		}
	}
	return pass("%d graphs match the index", len(e.pages))
}

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	m := map[string]int{}
	for _, x := range a {
		m[x]++
	}
	for _, x := range b {
		m[x]--
	}
	for _, n := range m {
		if n != 0 {
			return false
		}
	}
	return true
}

func checkGraphSchemas(ctx context.Context, e *Env) Outcome {
	if o, ok := needPages(e); !ok {
		return o
	}
	for _, p := range e.pages {
		if err := schemas.Validate(schemas.Graph, p.resp.body); err != nil {
			return fail("%s: %v", p.url, err)
		}
	}
	return pass("%d graphs", len(e.pages))
}

// checkRoutesReached reports the routes of the index for which the crawl
// found no page: their graphs were not checked.
func checkRoutesReached(ctx context.Context, e *Env) Outcome {
	if e.index == nil {
		return skip("no site index")
	}
	if len(e.unreached) > 0 {
		return fail("no page was reached of %s: give a concrete page of each with --page PATH",
			strings.Join(e.unreached, ", "))
	}
	return pass("a page of each of the %d routes", len(e.index.Routes))
}
