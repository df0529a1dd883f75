package site

import (
	"context"
	"log/slog"
	"time"
)

// auditCall logs the one record every call leaves, by any transport, and
// tells the site's Observer.
func (c *call) auditCall(status int, code string) {
	c.observe(status, code)
	action := c.name
	if len(action) > 64 {
		action = action[:64] // an unknown name is the caller's text: bound it
	}
	c.site.opts.AuditLogger.LogAttrs(context.WithoutCancel(c.r.Context()), slog.LevelInfo, "affordances call",
		slog.String("route", c.page.route),
		slog.String("page", c.r.URL.Path),
		slog.String("action", action),
		slog.String("caller", c.caller.ID),
		slog.String("auth", string(callerKind(c.caller.Mode))),
		slog.String("agent", c.caller.Agent),
		slog.Bool("confirm", c.confirm),
		slog.String("transport", string(c.transport)),
		slog.String("result", code),
		slog.Int("status", status),
		slog.Duration("duration", time.Since(c.started)),
	)
}
