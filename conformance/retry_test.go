package conformance_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/affordances-go/affordances/conformance"
	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site"
)

// A site briefly without its data answers 503 unavailable with
// Retry-After: the checker waits and asks again, as an agent does, and
// judges the answer that follows.
func TestChecker_WaitsOutA503WithRetryAfter(t *testing.T) {
	s := site.New(site.Options{Name: "restarting"})
	s.Page("/", site.PageOptions{Description: "home"})
	var first atomic.Bool
	var asked atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == protocol.WellKnownPath {
			asked.Add(1)
			if !first.Swap(true) {
				w.Header().Set("Content-Type", protocol.MediaType)
				w.Header().Set("Retry-After", "1")
				w.WriteHeader(http.StatusServiceUnavailable)
				w.Write([]byte(`{"ok":false,"error":{"code":"unavailable","message":"The site cannot reach its data just now."}}`))
				return
			}
		}
		s.ServeHTTP(w, r)
	}))
	defer srv.Close()
	rep, err := conformance.RunChecks(context.Background(), conformance.Config{BaseURL: srv.URL}, conformance.Readiness()[:1])
	if err != nil {
		t.Fatal(err)
	}
	if r := rep.Results[0]; r.Status != conformance.Pass || asked.Load() < 2 {
		t.Fatalf("%s %s (index asked %d times)", r.Status, r.Detail, asked.Load())
	}
}
