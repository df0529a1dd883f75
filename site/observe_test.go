package site_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site"
	"github.com/affordances-go/affordances/site/sitetest"
)

// recorder keeps what an Observer is told.
type recorder struct {
	mu     sync.Mutex
	calls  []site.CallEvent
	graphs []site.GraphEvent
}

func (r *recorder) ObserveCall(_ context.Context, c site.CallEvent) {
	r.mu.Lock()
	defer r.mu.Unlock()
	c.Steps = append([]site.Step(nil), c.Steps...)
	r.calls = append(r.calls, c)
}

func (r *recorder) ObserveGraph(_ context.Context, g site.GraphEvent) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.graphs = append(r.graphs, g)
}

func stepNames(c site.CallEvent) string {
	var names []string
	for _, s := range c.Steps {
		names = append(names, s.Name)
	}
	return strings.Join(names, ",")
}

// Every call, by every transport, and every graph read reach the
// Observer with route, action, transport, outcome, caller kind and the
// time of each step that ran.
func TestObserver_SeesEveryCallAndGraphRead(t *testing.T) {
	rec := &recorder{}
	s := site.New(site.Options{Name: "Observed", Observer: rec, Logger: slog.New(slog.DiscardHandler)})
	p := s.Page("/counter/{id}", site.PageOptions{Load: func(r *site.Request) (*site.State, error) {
		return withEntities(&site.State{}, map[string]any{"count": 1}), nil
	}})
	site.Handle(p, site.Action{Name: "add", Description: "Add", Expose: protocol.ExposePublic},
		func(r *site.Request, in struct {
			By int `json:"by" minimum:"1"`
		}) (site.Done, error) {
			return site.Done{}, nil
		})
	c := sitetest.New(t, s)

	c.Graph("/counter/7")
	c.Call("/counter/7", "add", map[string]any{"by": 2})
	c.Call("/counter/7", "add", map[string]any{"by": 0})
	c.Call("/counter/7", "nope", nil)
	c.PostForm("/counter/7", url.Values{"_action": {"add"}, "by": {"3"}})
	if _, err := s.Execute(httptest.NewRequest("POST", "/mcp", nil), site.Call{Page: "/counter/7", Transport: site.Transport("mcp"), Call: protocol.Call{Action: "add", Input: json.RawMessage(`{"by":1}`)}}); err != nil {
		t.Fatal(err)
	}

	if len(rec.graphs) != 1 || rec.graphs[0].Route != "/counter/[id]" || rec.graphs[0].Code != site.CodeOK || rec.graphs[0].Bytes == 0 || rec.graphs[0].Caller != site.CallerAnonymous {
		t.Errorf("graph reads: %+v", rec.graphs)
	}
	want := []struct {
		action    string
		transport site.Transport
		code      protocol.ErrorCode
		steps     string
	}{
		{"add", site.TransportAgent, site.CodeOK, "decode,resolve,authorize,rate_limit,validate,guard,confirm,run"},
		{"add", site.TransportAgent, protocol.CodeInvalidInput, "decode,resolve,authorize,rate_limit,validate"},
		{"", site.TransportAgent, protocol.CodeNotFound, "decode,resolve"},
		{"add", site.TransportForm, site.CodeOK, "decode,resolve,authorize,rate_limit,validate,guard,confirm,run"},
		{"add", site.Transport("mcp"), site.CodeOK, "decode,resolve,authorize,rate_limit,validate,guard,confirm,run"},
	}
	if len(rec.calls) != len(want) {
		t.Fatalf("%d calls observed, want %d: %+v", len(rec.calls), len(want), rec.calls)
	}
	for i, w := range want {
		got := rec.calls[i]
		if got.Route != "/counter/[id]" || got.Action != w.action || got.Transport != w.transport || got.Code != w.code || stepNames(got) != w.steps || got.Caller != site.CallerAnonymous {
			t.Errorf("call %d: %+v (steps %s), want %+v", i, got, stepNames(got), w)
		}
		var sum int64
		for _, st := range got.Steps {
			sum += int64(st.Duration)
		}
		if got.Duration <= 0 || sum > int64(got.Duration) {
			t.Errorf("call %d: duration %v, steps %v", i, got.Duration, sum)
		}
	}
}
