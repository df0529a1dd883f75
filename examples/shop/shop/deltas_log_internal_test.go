package shop

import (
	"log/slog"
	"strings"
	"testing"
	"time"
)

// While the database is away, the deltas written behind the answers are
// retried: each failed try is a warning to the store's own Logger, and
// only the last, after which they are dropped (their keys stay
// committed), is an error.
func TestDeltaWriter_LogsRetriesAsWarningsAndTheDropAsAnError(t *testing.T) {
	s, db := openStore(t)
	lines := make(chan string, 16)
	s.Logger = slog.New(slog.NewTextHandler(chanWriter(lines), nil))
	db.Close() // the database goes away before the writer's first batch
	s.keys.writer.add(s.keys, "scope", "key", "claim", []byte(`{"ok":true}`))
	var got []string
	for len(got) < 3 {
		select {
		case l := <-lines:
			got = append(got, l)
		case <-time.After(10 * time.Second):
			t.Fatalf("logged %d lines: %q", len(got), got)
		}
	}
	for i, l := range got {
		want := "level=WARN"
		if i == 2 {
			want = "level=ERROR"
		}
		if !strings.Contains(l, want) || !strings.Contains(l, "deltas of idempotent calls") {
			t.Errorf("try %d logged %q, want %s", i+1, l, want)
		}
	}
}

// chanWriter sends each write (a log line) on a channel.
type chanWriter chan string

func (c chanWriter) Write(p []byte) (int, error) { c <- string(p); return len(p), nil }
