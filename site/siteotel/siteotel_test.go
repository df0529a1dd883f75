package siteotel_test

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site"
	"github.com/affordances-go/affordances/site/ratelimit"
	"github.com/affordances-go/affordances/site/siteotel"
)

// A call becomes one span with an event per step, joined to the caller's
// trace, and the metrics count calls, durations and graph reads.
func TestObserver_SpansAndMetrics(t *testing.T) {
	spans := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	obs, err := siteotel.New(siteotel.Options{TracerProvider: tp, MeterProvider: mp})
	if err != nil {
		t.Fatal(err)
	}
	s := site.New(site.Options{Name: "Traced", Observer: obs, Logger: slog.New(slog.DiscardHandler)})
	p := s.Page("/items/{id}", site.PageOptions{})
	site.Handle(p, site.Action{Name: "add", Description: "Add", Expose: protocol.ExposePublic},
		func(r *site.Request, in struct {
			N int `json:"n" minimum:"1"`
		}) (site.Done, error) {
			return site.Done{}, nil
		})
	h := siteotel.Handler(s)

	post := func(body string) int {
		req := httptest.NewRequest("POST", "/items/3", strings.NewReader(body))
		req.Header.Set("Content-Type", protocol.MediaType)
		req.Header.Set("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		return w.Code
	}
	if code := post(`{"action":"add","input":{"n":1}}`); code != 200 {
		t.Fatalf("call: %d", code)
	}
	if code := post(`{"action":"add","input":{"n":0}}`); code != 400 {
		t.Fatalf("bad call: %d", code)
	}
	get := httptest.NewRequest("GET", "/items/3", nil)
	get.Header.Set("Accept", protocol.MediaType)
	h.ServeHTTP(httptest.NewRecorder(), get)

	got := spans.GetSpans()
	var call tracetest.SpanStub
	children := map[string]bool{}
	for _, sp := range got {
		if sp.Name == "affordances add" && call.Name == "" {
			call = sp
		}
	}
	if call.Name == "" {
		t.Fatalf("no call span among %d", len(got))
	}
	if call.Parent.TraceID().String() != "4bf92f3577b34da6a3ce929d0e0e4736" || call.SpanKind.String() != "server" {
		t.Errorf("the call span is not in the caller's trace: %v %v", call.Parent.TraceID(), call.SpanKind)
	}
	attrs := map[attribute.Key]string{}
	for _, a := range call.Attributes {
		attrs[a.Key] = a.Value.String()
	}
	for k, v := range map[attribute.Key]string{"affordances.route": "/items/[id]", "affordances.action": "add", "affordances.code": "ok",
		"affordances.transport": "agent", "affordances.caller": "anonymous", "http.route": "/items/[id]", "http.request.method": "POST",
		"http.response.status_code": "200"} {
		if attrs[k] != v {
			t.Errorf("attribute %s = %q, want %q", k, attrs[k], v)
		}
	}
	for _, ev := range call.Events {
		children[ev.Name] = true
		if !ev.Time.After(call.StartTime) && !ev.Time.Equal(call.StartTime) || ev.Time.After(call.EndTime) {
			t.Errorf("event %s at %v, outside the span %v-%v", ev.Name, ev.Time, call.StartTime, call.EndTime)
		}
	}
	for _, step := range []string{"decode", "resolve", "authorize", "rate_limit", "validate", "guard", "confirm", "run"} {
		if !children["affordances."+step] {
			t.Errorf("no event for the step %s: %v", step, children)
		}
	}

	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	counts := map[string]int64{}
	var histCount uint64
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			switch d := m.Data.(type) {
			case metricdata.Sum[int64]:
				for _, dp := range d.DataPoints {
					code, _ := dp.Attributes.Value("affordances.code")
					counts[m.Name+" "+code.AsString()] += dp.Value
				}
			case metricdata.Histogram[float64]:
				for _, dp := range d.DataPoints {
					histCount += dp.Count
				}
			}
		}
	}
	if counts["affordances.calls ok"] != 1 || counts["affordances.calls invalid_input"] != 1 || counts["affordances.graph.reads ok"] != 1 || histCount != 2 {
		t.Errorf("metrics: %v, durations %d", counts, histCount)
	}
}

// Nothing about the caller or the input reaches a span.
func TestObserver_RecordsNoPersonalData(t *testing.T) {
	spans := tracetest.NewInMemoryExporter()
	obs, _ := siteotel.New(siteotel.Options{TracerProvider: sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans)),
		MeterProvider: sdkmetric.NewMeterProvider()})
	s := site.New(site.Options{Name: "Private", Observer: obs, Logger: slog.New(slog.DiscardHandler),
		Auth: site.AuthFunc(func(r *http.Request) (site.Caller, error) {
			return site.Caller{ID: "user-secret-id", Account: "ada@example.com", Mode: protocol.AuthBearer, SignedIn: true}, nil
		})})
	p := s.Page("/", site.PageOptions{})
	site.Handle(p, site.Action{Name: "note", Description: "Note", Expose: protocol.ExposeSession},
		func(r *site.Request, in struct {
			Text string `json:"text"`
		}) (site.Done, error) {
			return site.Done{}, nil
		})
	req := httptest.NewRequest("POST", "/", strings.NewReader(`{"action":"note","input":{"text":"my secret note"}}`))
	req.Header.Set("Content-Type", protocol.MediaType)
	req.Header.Set("Authorization", "Bearer tok")
	s.ServeHTTP(httptest.NewRecorder(), req)
	for _, sp := range spans.GetSpans() {
		for _, a := range sp.Attributes {
			v := a.Value.String()
			if strings.Contains(v, "secret") || strings.Contains(v, "ada@") || strings.Contains(v, "tok") {
				t.Errorf("span %s carries %s=%s", sp.Name, a.Key, v)
			}
		}
	}
}

// failingLimiter is a shared limiter that is down.
type failingLimiter struct{}

func (failingLimiter) Allow(context.Context, string, ratelimit.Limit) (ratelimit.Decision, error) {
	return ratelimit.Decision{}, errors.New("redis: connection refused")
}

// With the shared limiter down behind a degrading one, every call is
// counted in affordances.limiter.faults, the counter the documented
// alert (sum(rate(affordances_limiter_faults_total[5m])) > 0) reads.
func TestObserver_ADegradedLimiterMovesTheFaultCounter(t *testing.T) {
	reader := sdkmetric.NewManualReader()
	obs, err := siteotel.New(siteotel.Options{MeterProvider: sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))})
	if err != nil {
		t.Fatal(err)
	}
	limiter := ratelimit.NewDegrading(failingLimiter{}, ratelimit.DegradeOptions{Instances: 2, Logger: slog.New(slog.DiscardHandler)})
	s := site.New(site.Options{Observer: obs, Logger: slog.New(slog.DiscardHandler), Limits: site.LimitOptions{Limiter: limiter}})
	p := s.Page("/", site.PageOptions{})
	site.Handle(p, site.Action{Name: "go", Description: "Go", Expose: protocol.ExposePublic},
		func(r *site.Request, in struct{}) (site.Done, error) { return site.Done{}, nil })
	for range 3 {
		req := httptest.NewRequest("POST", "/", strings.NewReader(`{"action":"go"}`))
		req.Header.Set("Content-Type", protocol.MediaType)
		s.ServeHTTP(httptest.NewRecorder(), req)
	}
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	var faults int64
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if d, ok := m.Data.(metricdata.Sum[int64]); ok && m.Name == siteotel.MetricLimiterFaults {
				for _, dp := range d.DataPoints {
					faults += dp.Value
				}
			}
		}
	}
	if faults != 3 {
		t.Errorf("affordances.limiter.faults = %d after 3 degraded calls, want 3", faults)
	}
}
