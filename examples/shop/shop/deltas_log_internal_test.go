package shop

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"
)

// While the database is away, the deltas written behind the answers are
// retried: each failed try is a warning to the store's own Logger, and
// only the last, after the writer's patience, when they are dropped
// (their keys stay committed), is an error.
func TestDeltaWriter_LogsRetriesAsWarningsAndTheDropAsAnError(t *testing.T) {
	s, db := openStore(t)
	lines := make(chan string, 64)
	s.Logger = slog.New(slog.NewTextHandler(chanWriter(lines), nil))
	s.keys.writer.patience = 500 * time.Millisecond // tries at about 0, 0.1, 0.3 s; dropped at about 0.7 s
	db.DB.Close()                                   // the pool under the store's DB fails as a database gone away does, and DB.Close was not called
	s.keys.writer.add(s.keys, "scope", "key", "claim", []byte(`{"ok":true}`))
	var got []string
	for len(got) == 0 || !strings.Contains(got[len(got)-1], "level=ERROR") {
		select {
		case l := <-lines:
			got = append(got, l)
		case <-time.After(10 * time.Second):
			t.Fatalf("logged %d lines: %q", len(got), got)
		}
	}
	if len(got) < 3 {
		t.Fatalf("want at least two retries before the drop, logged %q", got)
	}
	if _, ok := s.keys.writer.pending("scope", "key", "claim"); ok {
		t.Error("the delta still waits after the drop")
	}
	for i, l := range got {
		want := "level=WARN"
		if i == len(got)-1 {
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

// A store closed while its database is away stops trying at once (its
// Close tried once more), rather than retrying for the writer's patience
// against a database its owner is closing.
func TestDeltaWriter_StopsTryingOnceTheStoreIsClosed(t *testing.T) {
	s, db := openStore(t)
	lines := make(chan string, 64)
	s.Logger = slog.New(slog.NewTextHandler(chanWriter(lines), nil))
	db.DB.Close() // away, not closed by its owner: only the store's Close ends the retries
	s.keys.writer.add(s.keys, "scope", "key", "claim", []byte(`{"ok":true}`))
	if err := s.Close(context.Background()); err == nil {
		t.Fatal("Close wrote the deltas to a closed database")
	}
	if l := waitForDrop(t, lines); !strings.Contains(l, "the store is closed") {
		t.Fatalf("dropped for another reason: %q", l)
	}
}

// A database closed under the store, without the store's Close (a test's
// cleanup, a program that forgets), is as final: the writer drops what
// waits at once and says why, rather than retrying for a minute against
// "sql: database is closed" beside whatever runs next.
func TestDeltaWriter_StopsTryingOnceTheDatabaseIsClosed(t *testing.T) {
	s, db := openStore(t)
	lines := make(chan string, 64)
	s.Logger = slog.New(slog.NewTextHandler(chanWriter(lines), nil))
	db.Close()
	s.keys.writer.add(s.keys, "scope", "key", "claim", []byte(`{"ok":true}`))
	if l := waitForDrop(t, lines); !strings.Contains(l, "the database is closed") {
		t.Fatalf("dropped for another reason: %q", l)
	}
	if _, ok := s.keys.writer.pending("scope", "key", "claim"); ok {
		t.Error("the delta still waits after the drop")
	}
}

// waitForDrop returns the line the writer logged when it dropped its
// deltas (its one ERROR), failing if that takes 10 s: the writer's
// patience is a minute, so only a reason to stop early ends it sooner.
func waitForDrop(t *testing.T, lines <-chan string) string {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case l := <-lines:
			if strings.Contains(l, "level=ERROR") {
				return l
			}
		case <-deadline:
			t.Fatal("the writer still tries 10 s after it was told to stop")
			return ""
		}
	}
}
