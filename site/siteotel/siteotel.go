// Package siteotel reports an Affordances site to OpenTelemetry: one span
// per call with an event per pipeline step, and metrics of calls,
// their durations, graph reads and rate-limiter faults. It is a
// [site.Observer]; the site package itself imports no telemetry library.
//
//	obs, err := siteotel.New(siteotel.Options{}) // the global providers
//	s := site.New(site.Options{Observer: obs, ...})
//	http.ListenAndServe(addr, siteotel.Handler(s)) // trace context from the request
//
// Attributes follow OpenTelemetry's HTTP semantic conventions where they
// apply (http.request.method, http.route, http.response.status_code,
// error.type) plus the protocol's own: affordances.route,
// affordances.action, affordances.code, affordances.transport and
// affordances.caller (anonymous, cookie or bearer). Nothing identifies
// the caller, and no input value is recorded.
package siteotel

import (
	"context"
	"net/http"
	"sync"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/affordances-go/affordances/site"
)

// ScopeName is the instrumentation scope of the spans and metrics.
const ScopeName = "github.com/affordances-go/affordances/site"

// The metrics' names.
const (
	MetricCalls         = "affordances.calls"          // counter: calls, by route, action, transport, code
	MetricCallDuration  = "affordances.call.duration"  // histogram, seconds: by route, action, transport, code
	MetricGraphReads    = "affordances.graph.reads"    // counter: graph reads, by route, transport, code
	MetricLimiterFaults = "affordances.limiter.faults" // counter: calls during which the limiter failed, by route, action
)

// Options configure an Observer. The zero value uses OpenTelemetry's
// global providers.
type Options struct {
	TracerProvider trace.TracerProvider
	MeterProvider  metric.MeterProvider
}

// Observer reports calls and graph reads to OpenTelemetry. Create it with
// New; it is safe for concurrent use.
type Observer struct {
	tracer        trace.Tracer
	calls         metric.Int64Counter
	duration      metric.Float64Histogram
	graphs        metric.Int64Counter
	limiterFaults metric.Int64Counter
	sets          sync.Map // callKey -> *callSets
}

var _ site.Observer = (*Observer)(nil)

// New returns an Observer on the given providers, creating its
// instruments once.
func New(opts Options) (*Observer, error) {
	tp, mp := opts.TracerProvider, opts.MeterProvider
	if tp == nil {
		tp = otel.GetTracerProvider()
	}
	if mp == nil {
		mp = otel.GetMeterProvider()
	}
	m := mp.Meter(ScopeName)
	o := &Observer{tracer: tp.Tracer(ScopeName)}
	var err error
	if o.calls, err = m.Int64Counter(MetricCalls, metric.WithUnit("{call}"),
		metric.WithDescription("Calls of actions, by route, action, transport and outcome code")); err != nil {
		return nil, err
	}
	if o.duration, err = m.Float64Histogram(MetricCallDuration, metric.WithUnit("s"),
		metric.WithDescription("How long calls take, through the whole pipeline"),
		metric.WithExplicitBucketBoundaries(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5)); err != nil {
		return nil, err
	}
	if o.graphs, err = m.Int64Counter(MetricGraphReads, metric.WithUnit("{read}"),
		metric.WithDescription("Graph reads, by route, transport and outcome code")); err != nil {
		return nil, err
	}
	if o.limiterFaults, err = m.Int64Counter(MetricLimiterFaults, metric.WithUnit("{call}"),
		metric.WithDescription("Calls during which the rate limiter failed (the site then allowed or denied them by its policy)")); err != nil {
		return nil, err
	}
	return o, nil
}

// ObserveCall records one span for the call, from its start to its end,
// with an event per pipeline step (its start, and its duration in
// seconds as the attribute affordances.step.duration), and the call's
// metrics. Events rather than child spans: nine spans a call cost more
// than the budget of 5% of a call allows.
func (o *Observer) ObserveCall(ctx context.Context, c site.CallEvent) {
	set := o.attrs(callKey{c.Route, c.Action, string(c.Transport), string(c.Code)})
	o.calls.Add(ctx, 1, metric.WithAttributeSet(set.all))
	o.duration.Record(ctx, c.Duration.Seconds(), metric.WithAttributeSet(set.all))
	if c.LimiterFault {
		o.limiterFaults.Add(ctx, 1, metric.WithAttributeSet(set.route))
	}

	name := "affordances " + c.Action
	if c.Action == "" {
		name = "affordances call"
	}
	spanAttrs := make([]attribute.KeyValue, 0, 10)
	spanAttrs = append(spanAttrs, set.all.ToSlice()...)
	spanAttrs = append(spanAttrs,
		attribute.String("affordances.caller", string(c.Caller)),
		attribute.String("http.request.method", http.MethodPost),
		attribute.String("http.route", c.Route),
		attribute.Int("http.response.status_code", c.Status),
	)
	if c.Code != site.CodeOK {
		spanAttrs = append(spanAttrs, attribute.String("error.type", string(c.Code)))
	}
	_, span := o.tracer.Start(ctx, name, trace.WithTimestamp(c.Start), trace.WithSpanKind(trace.SpanKindServer),
		trace.WithAttributes(spanAttrs...))
	if span.IsRecording() {
		for _, st := range c.Steps {
			span.AddEvent("affordances."+st.Name, trace.WithTimestamp(st.Start),
				trace.WithAttributes(attribute.Float64("affordances.step.duration", st.Duration.Seconds())))
		}
	}
	if c.Status >= 500 {
		span.SetStatus(codes.Error, string(c.Code))
	}
	span.End(trace.WithTimestamp(c.Start.Add(c.Duration)))
}

// callKey is what a call's metric attributes depend on.
type callKey struct{ route, action, transport, code string }

// callSets are a call's metric attribute sets, built once per key.
type callSets struct {
	all   attribute.Set // route, action, transport, code
	route attribute.Set // route and action
}

// attrs returns the attribute sets of a key, from the cache: routes,
// actions, transports and codes are few, and building a set per call
// would cost every call a sort and allocations.
func (o *Observer) attrs(k callKey) *callSets {
	if v, ok := o.sets.Load(k); ok {
		return v.(*callSets)
	}
	cs := &callSets{
		all: attribute.NewSet(attribute.String("affordances.route", k.route), attribute.String("affordances.action", k.action),
			attribute.String("affordances.transport", k.transport), attribute.String("affordances.code", k.code)),
		route: attribute.NewSet(attribute.String("affordances.route", k.route), attribute.String("affordances.action", k.action)),
	}
	v, _ := o.sets.LoadOrStore(k, cs)
	return v.(*callSets)
}

// ObserveGraph counts a graph read.
func (o *Observer) ObserveGraph(ctx context.Context, g site.GraphEvent) {
	o.graphs.Add(ctx, 1, metric.WithAttributes(
		attribute.String("affordances.route", g.Route),
		attribute.String("affordances.transport", string(g.Transport)),
		attribute.String("affordances.code", string(g.Code)),
	))
}

// Handler puts the trace context of the incoming request (W3C
// traceparent and baggage, or the global propagator's) into its context,
// so that a call's span joins the caller's trace. Put it in front of the
// site, or use otelhttp, which does the same and more.
func Handler(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := propagator().Extract(r.Context(), propagation.HeaderCarrier(r.Header))
		h.ServeHTTP(w, r.WithContext(ctx))
	})
}

// propagator is the global one, or W3C trace context and baggage when
// none was set.
func propagator() propagation.TextMapPropagator {
	p := otel.GetTextMapPropagator()
	if len(p.Fields()) == 0 {
		return propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})
	}
	return p
}
