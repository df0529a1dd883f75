package siteotel_test

import (
	"fmt"
	"log/slog"
	"net/http/httptest"
	"strings"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site"
	"github.com/affordances-go/affordances/site/siteotel"
)

// A site reports its calls to OpenTelemetry through an Observer; here to
// an in-memory exporter, to print what a call left.
func ExampleNew() {
	spans := tracetest.NewInMemoryExporter()
	obs, _ := siteotel.New(siteotel.Options{
		TracerProvider: sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans)),
		MeterProvider:  sdkmetric.NewMeterProvider(),
	})
	s := site.New(site.Options{Name: "Traced", Observer: obs, Logger: slog.New(slog.DiscardHandler)})
	p := s.Page("/", site.PageOptions{})
	site.Handle(p, site.Action{Name: "ping", Description: "Ping", Expose: protocol.ExposePublic},
		func(r *site.Request, in struct{}) (site.Done, error) { return site.Done{}, nil })

	r := httptest.NewRequest("POST", "/", strings.NewReader(`{"action":"ping"}`))
	r.Header.Set("Content-Type", protocol.MediaType)
	siteotel.Handler(s).ServeHTTP(httptest.NewRecorder(), r)
	for _, sp := range spans.GetSpans() {
		fmt.Println(sp.Name, sp.SpanKind, len(sp.Events), "step events")
	}
	// Output:
	// affordances ping server 8 step events
}
