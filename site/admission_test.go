package site_test

import (
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site"
	"github.com/affordances-go/affordances/site/sitetest"
)

// Past its capacity the site refuses calls at once with 503 and
// Retry-After, runs the ones it admitted, each once, and serves reads;
// once the load is gone, every call is served again.
func TestAdmission_ShedsPastCapacityAndRecovers(t *testing.T) {
	gate := make(chan struct{})
	var ran atomic.Int64
	s := site.New(site.Options{Logger: slog.New(slog.DiscardHandler), Limits: site.LimitOptions{MaxInFlight: 2, MaxQueued: 1, QueueWait: 30 * time.Millisecond}})
	p := s.Page("/work", site.PageOptions{Load: func(r *site.Request) (*site.State, error) { return &site.State{}, nil }})
	site.Handle(p, site.Action{Name: "slow", Expose: protocol.ExposePublic}, func(r *site.Request, in struct{}) (site.Done, error) {
		ran.Add(1)
		<-gate
		return site.Done{Message: "done"}, nil
	})
	site.Handle(p, site.Action{Name: "quick", Expose: protocol.ExposePublic}, func(r *site.Request, in struct{}) (site.Done, error) {
		ran.Add(1)
		return site.Done{}, nil
	})
	var wg sync.WaitGroup
	codes := make([]int, 2)
	for i := range codes {
		wg.Go(func() { codes[i] = sitetest.New(t, s).CallBody("/work", `{"action":"slow"}`).Code })
	}
	for ran.Load() < 2 {
		time.Sleep(time.Millisecond)
	}
	// Both slots are taken: ten more calls are refused, none waits long.
	shed := make([]*sitetest.Response, 10)
	start := time.Now()
	var wg2 sync.WaitGroup
	for i := range shed {
		wg2.Go(func() { shed[i] = sitetest.New(t, s).CallBody("/work", `{"action":"quick"}`) })
	}
	wg2.Wait()
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("refusing took %s", took)
	}
	for _, w := range shed {
		if w.Code != http.StatusServiceUnavailable || w.ErrorCode() != "unavailable" || w.Header().Get("Retry-After") != "1" {
			t.Fatalf("a call past capacity: %d %v %s", w.Code, w.Header(), w.Body)
		}
	}
	if n := ran.Load(); n != 2 {
		t.Errorf("%d calls ran, want the 2 admitted", n)
	}
	if s.Shed() != 10 {
		t.Errorf("Shed() = %d, want 10", s.Shed())
	}
	// Reads go on.
	if g := sitetest.New(t, s).Get("/work", sitetest.Header("Accept", protocol.MediaType)); g.Code != 200 {
		t.Errorf("a graph while busy: %d", g.Code)
	}
	close(gate)
	wg.Wait()
	if codes[0] != 200 || codes[1] != 200 {
		t.Errorf("the admitted calls: %v", codes)
	}
	if w := sitetest.New(t, s).CallBody("/work", `{"action":"quick"}`); w.Code != 200 {
		t.Errorf("after the load: %d %s", w.Code, w.Body)
	}
}

// A call that finds the slots taken waits in the short queue, and runs
// when one frees within QueueWait.
func TestAdmission_AShortQueue(t *testing.T) {
	gate := make(chan struct{})
	var ran atomic.Int64
	s := site.New(site.Options{Logger: slog.New(slog.DiscardHandler), Limits: site.LimitOptions{MaxInFlight: 1, MaxQueued: 1, QueueWait: 2 * time.Second}})
	p := s.Page("/work", site.PageOptions{})
	site.Handle(p, site.Action{Name: "slow", Expose: protocol.ExposePublic}, func(r *site.Request, in struct{}) (site.Done, error) {
		if ran.Add(1) == 1 {
			<-gate
		}
		return site.Done{}, nil
	})
	var wg sync.WaitGroup
	first := 0
	wg.Go(func() { first = sitetest.New(t, s).CallBody("/work", `{"action":"slow"}`).Code })
	for ran.Load() < 1 {
		time.Sleep(time.Millisecond)
	}
	second := make(chan int)
	go func() { second <- sitetest.New(t, s).CallBody("/work", `{"action":"slow"}`).Code }()
	time.Sleep(50 * time.Millisecond)
	if w := sitetest.New(t, s).CallBody("/work", `{"action":"slow"}`); w.Code != 503 {
		t.Errorf("past the queue: %d", w.Code)
	}
	close(gate)
	if code := <-second; code != 200 {
		t.Errorf("the queued call: %d", code)
	}
	wg.Wait()
	if first != 200 {
		t.Errorf("the first call: %d", first)
	}
}

// A refused call costs the site no work of the app's: it is refused
// before the caller is authenticated (for most sites a database read),
// so that shedding stays cheap when the site is busiest.
func TestAdmission_RefusedBeforeAuthentication(t *testing.T) {
	gate := make(chan struct{})
	var authenticated, ran atomic.Int64
	s := site.New(site.Options{Logger: slog.New(slog.DiscardHandler), Limits: site.LimitOptions{MaxInFlight: 1},
		Auth: site.AuthFunc(func(r *http.Request) (site.Caller, error) {
			authenticated.Add(1)
			return site.Caller{}, nil
		})})
	p := s.Page("/work", site.PageOptions{Load: func(r *site.Request) (*site.State, error) { return &site.State{}, nil }})
	site.Handle(p, site.Action{Name: "slow", Expose: protocol.ExposePublic}, func(r *site.Request, in struct{}) (site.Done, error) {
		ran.Add(1)
		<-gate
		return site.Done{}, nil
	})
	done := make(chan int)
	go func() { done <- sitetest.New(t, s).CallBody("/work", `{"action":"slow"}`).Code }()
	for ran.Load() < 1 {
		time.Sleep(time.Millisecond)
	}
	before := authenticated.Load()
	for range 5 {
		if w := sitetest.New(t, s).CallBody("/work", `{"action":"slow"}`); w.Code != http.StatusServiceUnavailable {
			t.Fatalf("a call past capacity: %d %s", w.Code, w.Body)
		}
	}
	if n := authenticated.Load() - before; n != 0 {
		t.Errorf("the authenticator ran %d times for refused calls, want 0", n)
	}
	close(gate)
	if code := <-done; code != 200 {
		t.Errorf("the admitted call: %d", code)
	}
}
