package conformance

// The negotiation.* checks: who gets a graph, and who gets HTML.

import (
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"strings"

	"github.com/affordances-go/affordances/protocol"
)

func checkMediaType(ctx context.Context, e *Env) Outcome {
	if o, ok := needPages(e); !ok {
		return o
	}
	for _, p := range e.pages {
		if p.graph.V == "" || p.graph.Route == "" || p.graph.Page == "" {
			return fail("%s: the graph lacks v, page or route", p.url)
		}
	}
	return pass("%d pages answered with a graph", len(e.pages))
}

func checkNoGraphFor(accept string) func(context.Context, *Env) Outcome {
	return func(ctx context.Context, e *Env) Outcome {
		if o, ok := needPages(e); !ok {
			return o
		}
		for _, p := range e.pages {
			res, err := e.do(ctx, http.MethodGet, p.url, nil, "Accept", accept)
			if err != nil {
				return fail("%s: %v", p.url, err)
			}
			if res.mediaType() {
				return fail("%s answered Accept: %s with an Affordances document", p.url, accept)
			}
		}
		return pass("%d pages answered with something else", len(e.pages))
	}
}

// withAlias adds affordances=1 to a page URL's query.
func withAlias(u string) string {
	if strings.Contains(u, "?") {
		return u + "&affordances=1"
	}
	return u + "?affordances=1"
}

func checkQueryAlias(ctx context.Context, e *Env) Outcome {
	if o, ok := needPages(e); !ok {
		return o
	}
	for _, p := range e.pages {
		res, err := e.do(ctx, http.MethodGet, withAlias(p.url), nil)
		if err != nil {
			return fail("%s: %v", p.url, err)
		}
		var g protocol.Graph
		if res.status != http.StatusOK || !res.mediaType() || json.Unmarshal(res.body, &g) != nil {
			return fail("%s?affordances=1 answered %d %s, not a graph", p.url, res.status, res.header.Get("Content-Type"))
		}
	}
	return pass("%d pages", len(e.pages))
}

func checkAliasHidden(ctx context.Context, e *Env) Outcome {
	if o, ok := needPages(e); !ok {
		return o
	}
	for _, p := range e.pages {
		res, err := e.do(ctx, http.MethodGet, withAlias(p.url), nil)
		if err != nil {
			return fail("%s: %v", p.url, err)
		}
		var g protocol.Graph
		if json.Unmarshal(res.body, &g) != nil {
			return skip("%s?affordances=1 gave no graph (see negotiation.query-alias)", p.url)
		}
		if strings.Contains(g.Page, "affordances") {
			return fail("%s: page %q carries the affordances parameter", p.url, g.Page)
		}
		again, err := e.getGraph(ctx, p.url)
		if err != nil {
			return fail("%s: %v", p.url, err)
		}
		var want protocol.Graph
		json.Unmarshal(again.body, &want)
		if !reflect.DeepEqual(g.Entities, want.Entities) {
			return fail("%s: the entities under ?affordances=1 differ from those under the Accept header", p.url)
		}
	}
	return pass("%d pages show the same state either way", len(e.pages))
}
