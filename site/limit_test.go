package site_test

import (
	"context"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site"
	"github.com/affordances-go/affordances/site/ratelimit"
	"github.com/affordances-go/affordances/site/sitetest"
)

// faultEvents records the Observer's calls that met a limiter fault.
type faultEvents struct {
	mu     sync.Mutex
	faults int
}

func (f *faultEvents) ObserveCall(_ context.Context, e site.CallEvent) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if e.LimiterFault {
		f.faults++
	}
}
func (f *faultEvents) ObserveGraph(context.Context, site.GraphEvent) {}

// While a degrading limiter decides with its local share (the shared one
// is down), every decision is a limiter fault the site counts and the
// Observer sees (so the documented alert on faults fires), and its local
// limit still holds.
func TestLimiterFaults_ADegradedDecisionIsAFault(t *testing.T) {
	obs := &faultEvents{}
	limiter := ratelimit.NewDegrading(failingLimiter{}, ratelimit.DegradeOptions{Instances: 2, Logger: slog.New(slog.DiscardHandler)})
	s := site.New(site.Options{Logger: slog.New(slog.DiscardHandler), Observer: obs,
		Limits: site.LimitOptions{Limiter: limiter, Default: ratelimit.Limit{Rate: 1, Per: time.Hour, Burst: 4}}})
	p := s.Page("/", site.PageOptions{})
	site.Handle(p, site.Action{Name: "go", Description: "Go", Expose: protocol.ExposePublic},
		func(*site.Request, struct{}) (site.Done, error) { return site.Done{}, nil })
	c := sitetest.New(t, s)
	codes := map[int]int{}
	for range 5 {
		codes[c.CallBody("/", `{"action":"go"}`).Code]++
	}
	if codes[200] != 2 || codes[429] != 3 {
		t.Errorf("a share of half a burst of 4: %v", codes)
	}
	if s.LimiterFaults() != 5 || obs.faults != 5 || limiter.Local() != 5 {
		t.Errorf("faults %d, observed %d, local decisions %d; want 5 each", s.LimiterFaults(), obs.faults, limiter.Local())
	}
}
