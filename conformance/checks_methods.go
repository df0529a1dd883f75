package conformance

// The methods.* checks: HEAD, and the methods a page does not answer.

import (
	"context"
	"net/http"

	"github.com/affordances-go/affordances/protocol"
)

func checkHead(ctx context.Context, e *Env) Outcome {
	if o, ok := needPages(e); !ok {
		return o
	}
	p := e.pages[0]
	res, err := e.do(ctx, http.MethodHead, p.url, nil, "Accept", protocol.MediaType)
	if err != nil {
		return fail("%v", err)
	}
	if res.status != http.StatusOK || len(res.body) != 0 || res.header.Get("Content-Type") != p.resp.header.Get("Content-Type") {
		return fail("%s: HEAD answered %d, %q, %d bytes of body", p.url, res.status, res.header.Get("Content-Type"), len(res.body))
	}
	return pass("%s", p.url)
}

func checkMethodNotAllowed(ctx context.Context, e *Env) Outcome {
	if o, ok := needPages(e); !ok {
		return o
	}
	p := e.pages[0]
	res, err := e.do(ctx, http.MethodPut, p.url, nil, "Accept", protocol.MediaType)
	if err != nil {
		return fail("%v", err)
	}
	if res.status != http.StatusMethodNotAllowed || res.header.Get("Allow") == "" {
		return fail("%s: PUT answered %d, Allow %q", p.url, res.status, res.header.Get("Allow"))
	}
	return pass("405, Allow: %s", res.header.Get("Allow"))
}
