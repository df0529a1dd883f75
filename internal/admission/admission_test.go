package admission

import (
	"context"
	"testing"
	"time"
)

// One slot and a queue of one: the second call waits for the first's
// release, the third is shed at once, and a nil *Slots admits all.
func TestSlots(t *testing.T) {
	a := New(1, 1, time.Minute)
	release, ok := a.Admit(context.Background())
	if !ok {
		t.Fatal("the first call was shed")
	}
	got := make(chan bool)
	go func() {
		r, ok := a.Admit(context.Background())
		if ok {
			r()
		}
		got <- ok
	}()
	for a.queued.Load() != 1 {
		time.Sleep(time.Millisecond)
	}
	if _, ok := a.Admit(context.Background()); ok {
		t.Error("a call past the queue was admitted")
	}
	release()
	if !<-got {
		t.Error("the queued call was shed after the slot was released")
	}
	if a.Shed() != 1 {
		t.Errorf("shed %d, want 1", a.Shed())
	}
	var none *Slots
	if r, ok := none.Admit(context.Background()); !ok || r == nil || none.Shed() != 0 {
		t.Error("nil slots refused a call")
	}
	if New(0, 5, time.Second) != nil {
		t.Error("no in-flight limit made slots")
	}
}

// A queued call whose caller goes away is shed.
func TestSlots_CallerGone(t *testing.T) {
	a := New(1, 1, time.Minute)
	release, _ := a.Admit(context.Background())
	defer release()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, ok := a.Admit(ctx); ok {
		t.Error("a call whose caller left was admitted")
	}
}
