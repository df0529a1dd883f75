package conformance

// The confirm.* checks: nothing runs without confirm: true.

import (
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"strings"

	"github.com/affordances-go/affordances/protocol"
)

func checkConfirm(ctx context.Context, e *Env) Outcome {
	c := e.cfg.Confirm
	if c == nil {
		return skip("needs a confirm action: --confirm-action")
	}
	target := e.abs(c.Page)
	before, err := e.getGraph(ctx, target)
	if err != nil || before.status != http.StatusOK {
		return fail("reading %s before the call: %v", target, err)
	}
	body := map[string]any{"action": c.Name}
	if c.Input != nil {
		body["input"] = c.Input
	}
	b, _ := json.Marshal(body)
	res, err := e.post(ctx, target, string(b))
	if err != nil {
		return fail("%v", err)
	}
	ok, msg := res.failedWith(http.StatusPreconditionRequired, protocol.CodeConfirmRequired)
	after, err := e.getGraph(ctx, target)
	if err != nil {
		return fail("reading %s after the call: %v", target, err)
	}
	var g0, g1 protocol.Graph
	json.Unmarshal(before.body, &g0)
	json.Unmarshal(after.body, &g1)
	changed := !reflect.DeepEqual(g0.Entities, g1.Entities)
	if d, err := res.delta(); err == nil && res.status == http.StatusConflict && d.Error != nil &&
		d.Error.Code == protocol.CodeUnavailable && !changed {
		// The guard answered before confirmation, as it must: the check
		// cannot tell whether confirmation is enforced.
		return skip("%s %s is unavailable now (%s): put the state in place (such as something in the cart) and run again",
			c.Page, c.Name, d.Error.Message)
	}
	switch {
	case !ok && changed:
		return fail("%s %s without confirm ran: %s, and the page changed", c.Page, c.Name, msg)
	case !ok:
		return fail("%s %s without confirm: %s", c.Page, c.Name, msg)
	case changed:
		return fail("%s %s answered confirm_required, but the page changed", c.Page, c.Name)
	}
	d, _ := res.delta()
	if strings.TrimSpace(d.Error.Message) == "" {
		return fail("confirm_required without a summary for the person")
	}
	return pass("428 with %q", d.Error.Message)
}
