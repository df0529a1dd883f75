package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/affordances-go/affordances/examples/shop/shop"
	"github.com/affordances-go/affordances/site/ratelimit"
	"github.com/affordances-go/affordances/site/siteotel"
)

// observability measures what OpenTelemetry costs a call: the same store,
// once without an Observer and once with siteotel on the SDK (every span
// sampled and batched to an exporter that drops them, metrics kept in
// memory), alternating in one run.
func observability(ctx context.Context, e *Env, smoke bool) ([]Row, error) {
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(discardSpans{}), sdktrace.WithSampler(sdktrace.AlwaysSample()))
	defer tp.Shutdown(ctx)
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
	defer mp.Shutdown(ctx)
	obs, err := siteotel.New(siteotel.Options{TracerProvider: tp, MeterProvider: mp})
	if err != nil {
		return nil, err
	}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	observed := shop.New(e.store, shop.Options{Logger: quiet, DefaultLimit: ratelimit.PerMinute(1<<40, 1<<30), NoApprovals: true, Observer: obs})

	e.resetCart(ctx)
	on, off, err := compare(e.addToCart(ctx, observed), e.addToCart(ctx, e.app), 5, smoke)
	e.resetCart(ctx)
	if err != nil {
		return nil, err
	}
	cost := func(r result) string { return fmt.Sprintf("%s, %.0f allocs", dur(ns(r.nsPerOp)), r.allocsPerOp) }
	return []Row{{Name: "call addToCart with OpenTelemetry (siteotel, SDK) vs without", Ours: cost(on), Baseline: cost(off),
		Ratio: ratio(vs(on, off), 1), Goal: "≤ 1.05×", Met: metOrSmoke(smoke, vs(on, off) <= 1.05),
		Note: "one span with 8 step events, 2 counters and a histogram per call"}}, nil
}

// discardSpans is a span exporter that drops what it is given.
type discardSpans struct{}

func (discardSpans) ExportSpans(context.Context, []sdktrace.ReadOnlySpan) error { return nil }
func (discardSpans) Shutdown(context.Context) error                             { return nil }
