package conformance

// The pages.* checks: no action runs on a page that is not there, and an
// HTML page announces a graph only where it serves one.

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/affordances-go/affordances/internal/route"
	"github.com/affordances-go/affordances/protocol"
)

// madeUpSegment stands for every parameter of a route in a URL the site
// should not have.
const madeUpSegment = "afford-check-made-up-7f3a"

// maxMadeUpCalls bounds the calls of pages.made-up-url.
const maxMadeUpCalls = 40

// checkMadeUpURL calls every action of every route with parameters on a
// URL of the route that names nothing, as the checker's caller, with an
// empty input and never confirm: true. Each must answer 404 not_found
// (step 1: the page is resolved before the caller, the input or the
// guard is checked), and the made-up URL must still have no graph after
// them (nothing was written there).
func checkMadeUpURL(ctx context.Context, e *Env) Outcome {
	if e.index == nil {
		return skip("no readable index (see index.served)")
	}
	calls, routes := 0, 0
	var wrong []string
	for _, ir := range e.index.Routes {
		rt, err := route.Parse(ir.Route)
		if err != nil || !rt.HasParams() || len(ir.Actions) == 0 || calls >= maxMadeUpCalls {
			continue
		}
		routes++
		target := e.abs(rt.Fill(madeUpSegment))
		for _, a := range ir.Actions {
			if calls >= maxMadeUpCalls {
				break
			}
			calls++
			res, err := e.post(ctx, target, `{"action":`+strconv.Quote(a.Name)+`,"input":{}}`)
			if err != nil {
				return fail("%v", err)
			}
			if ok, msg := res.failedWith(http.StatusNotFound, protocol.CodeNotFound); !ok {
				wrong = append(wrong, fmt.Sprintf("%s %s: %s", target, a.Name, msg))
			}
		}
		if res, err := e.getGraph(ctx, target); err == nil && res.status == http.StatusOK && res.mediaType() {
			wrong = append(wrong, fmt.Sprintf("%s has a graph after the calls: one of them wrote", target))
		}
	}
	if calls == 0 {
		return skip("no route with parameters lists an action")
	}
	if len(wrong) > 0 {
		return fail("%s (a call on a URL that names nothing must answer 404 not_found before its caller, input or guard is checked, and run nothing; with this project's Go library, give the page PageOptions.Exists)",
			strings.Join(wrong, "; "))
	}
	return pass("%d calls on made-up URLs of %d routes: 404 not_found", calls, routes)
}

// checkLinkWithoutGraph fetches, as a browser, the HTML of the URLs the
// crawl found without a graph and of a path the site has no page for
// (its not-found page): none may announce a graph (a link element or a
// Link header of rel="affordances"), as a layout shared by pages with
// and without a graph would.
func checkLinkWithoutGraph(ctx context.Context, e *Env) Outcome {
	var wrong []string
	checked := 0
	for _, u := range append([]string{e.abs("/afford-check-no-such-page-7f3a/")}, e.noGraph...) {
		res, err := e.do(ctx, http.MethodGet, u, nil, "Accept", "text/html")
		if err != nil {
			return fail("%v", err)
		}
		if !strings.HasPrefix(res.header.Get("Content-Type"), "text/html") {
			continue
		}
		checked++
		if announcesGraph(res) {
			wrong = append(wrong, u)
		}
	}
	if len(wrong) > 0 {
		return fail("%s announce a graph (rel=\"affordances\") and serve none: an agent that follows the link gets 404; put the link only on pages that have a graph",
			strings.Join(wrong, ", "))
	}
	if checked == 0 {
		return skip("no URL without a graph answered HTML")
	}
	return pass("none of the %d HTML answers without a graph announces one", checked)
}

// announcesGraph reports whether an HTML answer points agents at a graph:
// a Link header or a link element of rel="affordances".
func announcesGraph(res *response) bool {
	for _, l := range res.header.Values("Link") {
		if linkRel.MatchString(l) {
			return true
		}
	}
	return linkElem.Match(res.body)
}
