package tasks

import (
	"context"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"
)

// The counter of confirm actions run by a page's tool counts what an
// agent's call in a cookie session ran, and nothing else: the person's
// form post, a token's call, a refusal and an action that needs no
// confirmation pass.
func TestScriptConfirms_CountsOnlyAToolsConfirmAction(t *testing.T) {
	var n atomic.Int64
	var confirm atomic.Pointer[map[string]bool]
	confirm.Store(&map[string]bool{"placeOrder": true})
	log := slog.New(scriptConfirms{n: &n, confirm: &confirm})
	call := func(action, auth, transport, result string) {
		log.LogAttrs(context.Background(), slog.LevelInfo, "affordances call",
			slog.String("action", action), slog.String("auth", auth), slog.String("transport", transport), slog.String("result", result),
			slog.Duration("duration", time.Millisecond))
	}
	call("placeOrder", "cookie", "form", "ok")                // the person's press
	call("placeOrder", "bearer", "agent", "ok")               // a token's call, approved on the site
	call("placeOrder", "cookie", "agent", "confirm_required") // a tool that only asked
	call("addToCart", "cookie", "agent", "ok")                // no confirmation needed
	log.Info("something else", "action", "placeOrder", "auth", "cookie", "transport", "agent", "result", "ok")
	if got := n.Load(); got != 0 {
		t.Fatalf("counted %d where no tool ran a confirm action", got)
	}
	call("placeOrder", "cookie", "agent", "ok") // a page's script placed the order
	if got := n.Load(); got != 1 {
		t.Fatalf("counted %d, want 1", got)
	}
}
