package shop

import (
	"context"
	"sync/atomic"
	"testing"
	"time"
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
