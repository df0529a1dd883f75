package shop

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	otelprom "go.opentelemetry.io/otel/exporters/prometheus"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/affordances-go/affordances/site/siteotel"
)

// Telemetry is what the store reports to its operators: the site's
// metrics in Prometheus format (each instance its own registry) and,
// when asked, traces sent to an OTLP endpoint.
type Telemetry struct {
	// Observer is the site's Observer: give it to Options.Observer.
	Observer *siteotel.Observer
	// Metrics serves the metrics in Prometheus's text format.
	Metrics http.Handler

	shutdown []func(context.Context) error
}

// NewTelemetry sets the store's telemetry up. With traces, spans go to the
// OTLP/HTTP endpoint that the standard OTEL_EXPORTER_OTLP_ENDPOINT (or
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) variable names.
func NewTelemetry(ctx context.Context, traces bool) (*Telemetry, error) {
	reg := prometheus.NewRegistry()
	exp, err := otelprom.New(otelprom.WithRegisterer(reg))
	if err != nil {
		return nil, fmt.Errorf("the Prometheus exporter: %w", err)
	}
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(exp))
	t := &Telemetry{Metrics: promhttp.HandlerFor(reg, promhttp.HandlerOpts{}), shutdown: []func(context.Context) error{mp.Shutdown}}
	opts := siteotel.Options{MeterProvider: mp}
	if traces {
		spans, err := otlptracehttp.New(ctx)
		if err != nil {
			return nil, fmt.Errorf("the OTLP trace exporter: %w", err)
		}
		res := resource.NewSchemaless(attribute.String("service.name", "heavyweight-supply"))
		tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(spans), sdktrace.WithResource(res))
		t.shutdown = append(t.shutdown, tp.Shutdown)
		opts.TracerProvider = tp
	}
	if t.Observer, err = siteotel.New(opts); err != nil {
		return nil, err
	}
	return t, nil
}

// Shutdown flushes what is still buffered (the last spans).
func (t *Telemetry) Shutdown(ctx context.Context) error {
	var errs []error
	for _, f := range t.shutdown {
		errs = append(errs, f(ctx))
	}
	return errors.Join(errs...)
}

// Admin is the handler of the store's admin address: /metrics for
// Prometheus and /healthz for the load balancer. It is meant for a
// private address, never the public one.
func (a *App) Admin(metrics http.Handler) http.Handler {
	mux := http.NewServeMux()
	if metrics != nil {
		mux.Handle("GET /metrics", metrics)
	}
	mux.HandleFunc("GET /healthz", a.health)
	return mux
}
