package shop

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/affordances-go/affordances/internal/servers"
	"github.com/affordances-go/affordances/internal/syncbuf"
	"github.com/affordances-go/affordances/site/idempotency"
)

// A delta that waits to be written while the database restarts (a
// PostgreSQL fast restart takes a second or two) is written once the
// database is back: a repeat of its call then gets the first answer, not
// "the first answer was lost". Only warnings are logged meanwhile.
func TestDeltaWriter_KeepsTheDeltasThroughADatabaseRestart(t *testing.T) {
	pg := servers.StartPostgres(t)
	ctx := context.Background()
	db, err := Open(ctx, pg.URL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	s := NewStore(db)
	var logged syncbuf.Buffer
	s.Logger = slog.New(slog.NewTextHandler(&logged, &slog.HandlerOptions{Level: slog.LevelWarn}))
	// A keyed call committed its action and its key; its answer went out,
	// and its delta waits behind it.
	now := time.Now()
	if _, err := db.ExecContext(ctx, db.rebind(`INSERT INTO idempotency_keys (scope, key, fingerprint, state, claim, lease_until, expires_at)
		VALUES (?, ?, ?, ?, ?, ?, ?)`), "caller", "key-1", "fp", string(idempotency.Committed), "claim-1",
		now.Add(deltaGrace).UnixMilli(), now.Add(time.Hour).UnixMilli()); err != nil {
		t.Fatal(err)
	}
	pg.Stop()
	const delta = `{"ok":true,"message":"Added."}`
	s.keys.writer.add(s.keys, "caller", "key-1", "claim-1", []byte(delta))
	time.Sleep(2 * time.Second) // the restart
	pg.Start()

	deadline := time.Now().Add(30 * time.Second)
	for {
		r, found, err := s.keys.read(ctx, "caller", "key-1")
		if err == nil && found && r.State == idempotency.Done {
			if string(r.Delta) != delta {
				t.Fatalf("delta %q, want %q", r.Delta, delta)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("30 s after the restart the key is %+v (found %v, err %v); the store logged:\n%s", r, found, err, logged.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	if out := logged.String(); strings.Contains(out, "level=ERROR") || !strings.Contains(out, "level=WARN") {
		t.Errorf("while the database was away, want warnings only; logged:\n%s", out)
	}
}

// After a restart of the database, the instance that ran a keyed call
// writes its delta within about a second of the database's return (its
// writer tries at least once a second), while the key's lease (half a
// second after its commit) is long past. A repeat that reaches another
// instance then waits for that write instead of being told at once that
// the first answer was lost; a delta that never comes (its instance
// died) is still answered as lost, a little later.
func TestClaim_WaitsForADeltaAnotherInstanceWritesLate(t *testing.T) {
	b, db := openStore(t) // the instance the repeat reaches
	a := NewStore(db)     // the instance that ran the call
	ctx := context.Background()
	past := time.Now().Add(-time.Minute) // committed before a minute-long outage
	for _, key := range []string{"written-late", "never-written"} {
		if _, err := db.ExecContext(ctx, `INSERT INTO idempotency_keys (scope, key, fingerprint, state, claim, lease_until, expires_at)
			VALUES (?, ?, ?, ?, ?, ?, ?)`, "caller", key, "fp", string(idempotency.Committed), "claim-a",
			past.Add(deltaGrace).UnixMilli(), time.Now().Add(time.Hour).UnixMilli()); err != nil {
			t.Fatal(err)
		}
	}
	const delta = `{"ok":true,"message":"Added."}`
	time.AfterFunc(400*time.Millisecond, func() { a.keys.writer.add(a.keys, "caller", "written-late", "claim-a", []byte(delta)) })
	r, claimed, err := b.keys.Claim(ctx, "caller", "written-late", "fp", "claim-b", time.Minute, time.Hour)
	if err != nil || claimed || r.State != idempotency.Done || string(r.Delta) != delta {
		t.Fatalf("the repeat got %+v (claimed %v, err %v), want the first call's delta", r, claimed, err)
	}
	start := time.Now()
	r, claimed, err = b.keys.Claim(ctx, "caller", "never-written", "fp", "claim-b", time.Minute, time.Hour)
	if err != nil || claimed || r.State != idempotency.Committed {
		t.Fatalf("a delta that never comes: %+v (claimed %v, err %v), want committed (the first answer lost)", r, claimed, err)
	}
	if waited := time.Since(start); waited > 5*time.Second {
		t.Errorf("told the first answer was lost after %v", waited)
	}
}
