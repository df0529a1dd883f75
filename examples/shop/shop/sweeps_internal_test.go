package shop

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/affordances-go/affordances/site/presence"
)

// Close waits for a sweep that is running and starts no more, so that the
// database can be closed after it without a sweep failing on it ("sql:
// database is closed", as the task benchmark's stores logged).
func TestStore_CloseWaitsForTheSweeps(t *testing.T) {
	ctx := context.Background()
	s, _ := openStore(t)
	started, release := make(chan struct{}), make(chan struct{})
	var last atomic.Int64
	s.sweepIfDue(&last, "a test's sweep", func(context.Context) (int, error) {
		close(started)
		<-release
		return 0, nil
	})
	<-started
	closed := make(chan error)
	go func() { closed <- s.Close(ctx) }()
	select {
	case <-closed:
		t.Fatal("Close returned while a sweep was running")
	case <-time.After(200 * time.Millisecond):
	}
	close(release)
	if err := <-closed; err != nil {
		t.Fatal(err)
	}
	var ran atomic.Bool
	var late atomic.Int64
	s.sweepIfDue(&late, "a late sweep", func(context.Context) (int, error) { ran.Store(true); return 0, nil })
	time.Sleep(100 * time.Millisecond)
	if ran.Load() {
		t.Error("a sweep started after Close")
	}
}

// A challenge is stored with one insert; the ones past their time are
// forgotten by the sweep, through their index, and the live ones kept.
func TestStore_ExpiredChallengesAreSwept(t *testing.T) {
	ctx := context.Background()
	s, _ := openStore(t)
	p := s.Passkeys()
	s.challengesSwept.Store(s.now().UnixMilli()) // no background sweep during the test
	for i, expires := range []time.Time{s.now().Add(-time.Hour), s.now().Add(-time.Minute), s.now().Add(time.Hour)} {
		if err := p.PutChallenge(ctx, fmt.Sprint("n", i), presence.Challenge{Account: "user:1", Kind: "signin", Expires: expires}); err != nil {
			t.Fatal(err)
		}
	}
	if n, err := s.ForgetExpiredChallenges(ctx); n != 2 || err != nil {
		t.Fatalf("swept %d, %v", n, err)
	}
	if _, err := p.TakeChallenge(ctx, "n2"); err != nil {
		t.Errorf("the live challenge: %v", err)
	}
	var plan string
	s.db.QueryRowContext(ctx, `EXPLAIN QUERY PLAN SELECT nonce FROM presence_challenges WHERE expires_at < ?`, 0).Scan(new(int), new(int), new(int), &plan)
	if !strings.Contains(plan, "presence_challenges_by_expiry") {
		t.Errorf("the sweep's query plan: %q", plan)
	}
}
