package tasks

import (
	"context"
	"log/slog"
	"sync/atomic"

	"github.com/affordances-go/affordances/client"
	"github.com/affordances-go/affordances/protocol"
)

// scriptConfirms counts, from the store's audit records, the confirm
// actions that ran on an agent's call in a cookie session: in the
// person's browser, that is a page's script or a WebMCP tool, never the
// person's own press (a form post) nor a token's call. The rule is that
// none runs: a tool only asks, and the person confirms on the page.
type scriptConfirms struct {
	n       *atomic.Int64
	confirm *atomic.Pointer[map[string]bool] // the store's confirm actions, by name, once read from its index
}

func (h scriptConfirms) Enabled(context.Context, slog.Level) bool { return true }
func (h scriptConfirms) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h scriptConfirms) WithGroup(string) slog.Handler            { return h }
func (h scriptConfirms) Handle(_ context.Context, r slog.Record) error {
	if r.Message != "affordances call" {
		return nil
	}
	a := map[string]string{}
	r.Attrs(func(at slog.Attr) bool {
		a[at.Key] = at.Value.String()
		return true
	})
	if confirm := h.confirm.Load(); confirm != nil && a["auth"] == "cookie" && a["transport"] == "agent" && a["result"] == "ok" && (*confirm)[a["action"]] {
		h.n.Add(1)
	}
	return nil
}

// readConfirmActions reads the names of the store's confirm actions from
// its site index.
func readConfirmActions(ctx context.Context, base string) (map[string]bool, error) {
	idx, err := client.New(client.Options{}).Index(ctx, base)
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, r := range idx.Routes {
		for _, a := range r.Actions {
			if a.Expose == protocol.ExposeConfirm {
				out[a.Name] = true
			}
		}
	}
	return out, nil
}
