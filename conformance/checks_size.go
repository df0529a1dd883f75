package conformance

// The size.* checks: graphs stay small.

import "context"

func checkGraphSize(ctx context.Context, e *Env) Outcome {
	if o, ok := needPages(e); !ok {
		return o
	}
	largest, where := 0, ""
	for _, p := range e.pages {
		if n := len(p.resp.body); n > largest {
			largest, where = n, p.url
		}
	}
	if largest/4 > 2000 {
		return fail("%s: about %d tokens (%d bytes)", where, largest/4, largest)
	}
	return pass("largest %s: about %d tokens", where, largest/4)
}
