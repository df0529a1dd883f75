package conformance

// The headers.* and discovery.* checks: the headers of graphs and of the
// HTML of pages with a graph, and how a client finds the graph.

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"regexp"
	"strings"

	"github.com/affordances-go/affordances/protocol"
)

func checkGraphHeader(name, token string) func(context.Context, *Env) Outcome {
	return func(ctx context.Context, e *Env) Outcome {
		if o, ok := needPages(e); !ok {
			return o
		}
		for _, p := range e.pages {
			if !headerHas(p.resp.header, name, token) {
				return fail("%s: %s is %q", p.url, name, strings.Join(p.resp.header.Values(name), ", "))
			}
		}
		return pass("%d graphs", len(e.pages))
	}
}

// headerHas reports whether a header lists token (case-insensitively,
// ignoring parameters).
func headerHas(h http.Header, name, token string) bool {
	for _, v := range h.Values(name) {
		for _, part := range strings.Split(v, ",") {
			t, _, _ := strings.Cut(part, ";")
			if strings.EqualFold(strings.TrimSpace(t), token) {
				return true
			}
		}
	}
	return false
}

func checkGraphCacheControl(ctx context.Context, e *Env) Outcome {
	if o, ok := needPages(e); !ok {
		return o
	}
	for _, p := range e.pages {
		if !headerHas(p.resp.header, "Cache-Control", "private") || !headerHas(p.resp.header, "Cache-Control", "no-store") {
			return fail("%s: Cache-Control is %q", p.url, p.resp.header.Get("Cache-Control"))
		}
	}
	return pass("%d graphs", len(e.pages))
}

// htmlPages fetches the HTML of every page that has HTML.
func (e *Env) htmlPages(ctx context.Context) ([]*response, []string, error) {
	var out []*response
	var urls []string
	for _, p := range e.pages {
		res, err := e.do(ctx, http.MethodGet, p.url, nil, "Accept", "text/html")
		if err != nil {
			return nil, nil, err
		}
		if res.status == http.StatusOK && strings.HasPrefix(res.header.Get("Content-Type"), "text/html") {
			out = append(out, res)
			urls = append(urls, p.url)
		}
	}
	return out, urls, nil
}

func withHTML(ctx context.Context, e *Env, f func(url string, r *response) string) Outcome {
	if o, ok := needPages(e); !ok {
		return o
	}
	pages, urls, err := e.htmlPages(ctx)
	if err != nil {
		return fail("%v", err)
	}
	if len(pages) == 0 {
		return skip("no page answered with HTML")
	}
	for i, r := range pages {
		if msg := f(urls[i], r); msg != "" {
			return fail("%s: %s", urls[i], msg)
		}
	}
	return pass("%d HTML pages", len(pages))
}

func checkHTMLVary(ctx context.Context, e *Env) Outcome {
	return withHTML(ctx, e, func(u string, r *response) string {
		if !headerHas(r.header, "Vary", "Accept") {
			return fmt.Sprintf("Vary is %q", r.header.Get("Vary"))
		}
		return ""
	})
}

var linkRel = regexp.MustCompile(`(?i)<\s*\?affordances=1\s*>\s*;\s*rel\s*=\s*"?affordances"?`)

func checkLinkHeader(ctx context.Context, e *Env) Outcome {
	return withHTML(ctx, e, func(u string, r *response) string {
		for _, v := range r.header.Values("Link") {
			if linkRel.MatchString(v) {
				return ""
			}
		}
		return fmt.Sprintf("Link is %q", r.header.Get("Link"))
	})
}

var linkElem = regexp.MustCompile(`(?is)<link\b[^>]*\brel\s*=\s*["']?affordances["']?[^>]*>`)

func checkLinkElement(ctx context.Context, e *Env) Outcome {
	return withHTML(ctx, e, func(u string, r *response) string {
		m := linkElem.Find(r.body)
		if m == nil || !bytes.Contains(m, []byte("?affordances=1")) {
			return `no <link rel="affordances" href="?affordances=1">`
		}
		return ""
	})
}

// checkNotFoundUncached asks of a path with no page, as a browser and as
// an agent: the browser gets no Affordances document, and the agent's
// not_found is never stored for others, so that a shared cache cannot
// hand it to a browser. The browser's answer (a static file, a 404) then
// needs no Vary, and caches keep one copy of it.
func checkNotFoundUncached(ctx context.Context, e *Env) Outcome {
	target := e.abs("/afford-check-no-such-page-7f3a/")
	res, err := e.do(ctx, http.MethodGet, target, nil, "Accept", "text/html")
	if err != nil {
		return fail("%v", err)
	}
	if res.mediaType() {
		return fail("%s: a browser got an Affordances document", target)
	}
	res, err = e.do(ctx, http.MethodGet, target, nil, "Accept", protocol.MediaType)
	if err != nil {
		return fail("%v", err)
	}
	if !res.mediaType() || res.status != http.StatusNotFound {
		return fail("%s: an agent got %d %q, want a not_found delta", target, res.status, res.header.Get("Content-Type"))
	}
	if cc := res.header.Get("Cache-Control"); !strings.Contains(cc, "no-store") && !headerHas(res.header, "Vary", "Accept") {
		return fail("%s: the agent's not_found has Cache-Control %q and no Vary: Accept: a shared cache could give it to browsers", target, cc)
	}
	return pass("the agent's not_found is %q", res.header.Get("Cache-Control"))
}
