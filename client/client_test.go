package client_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/affordances-go/affordances/client"
	"github.com/affordances-go/affordances/protocol"
)

var ctx = context.Background()

func TestClient_NeverConfirmsWithoutApproval(t *testing.T) {
	s := newTestSite()
	for _, approver := range []client.Approver{nil, func(context.Context, client.Approval) (bool, error) { return false, nil }} {
		c := s.client(client.Options{Token: "good", Approver: approver})
		if _, err := c.Call(ctx, base+"/products/tee", "addToCart", map[string]any{"sku": "TEE-BLK-M"}); err != nil {
			t.Fatal(err)
		}
		_, err := c.Call(ctx, base+"/checkout", "placeOrder", nil)
		if approver == nil && !client.IsCode(err, protocol.CodeConfirmRequired) {
			t.Errorf("no approver: %v", err)
		}
		if approver != nil && !errors.Is(err, client.ErrNotApproved) {
			t.Errorf("declined: %v", err)
		}
	}
	if s.orders.Load() != 0 {
		t.Fatalf("an order was placed without approval")
	}
}

func TestClient_InvalidInputCarriesEveryIssue(t *testing.T) {
	c := newTestSite().client(client.Options{Token: "good"})
	_, err := c.Call(ctx, base+"/products/tee", "addToCart", map[string]any{"sku": "tee", "qty": 11, "colour": "black"})
	var e *client.Error
	if !errors.As(err, &e) || e.Code != protocol.CodeInvalidInput || e.Status != 400 || len(e.Issues) != 3 {
		t.Fatalf("%v", err)
	}
	for _, want := range []string{"/qty", "/sku", "/colour"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error text lacks %s: %v", want, err)
		}
	}
}

func TestClient_RefusesAnUnsupportedMajor(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", protocol.MediaType)
		if r.URL.Path == protocol.WellKnownPath {
			w.Write([]byte(`{"v":"1","routes":[],"auth":[]}`))
			return
		}
		w.Write([]byte(`{"v":"1","page":"/","route":"/","entities":{},"actions":[],"future":true}`))
	}))
	defer srv.Close()
	c := client.New(client.Options{})
	var ve *client.VersionError
	if _, err := c.Graph(ctx, srv.URL+"/"); !errors.As(err, &ve) || !strings.Contains(err.Error(), "supports majors 0 to 0") {
		t.Errorf("graph: %v", err)
	}
	if _, err := c.Index(ctx, srv.URL); !errors.As(err, &ve) {
		t.Errorf("index: %v", err)
	}
}

func TestClient_DiscoversTheGraphFromHTML(t *testing.T) {
	c := newTestSite().client(client.Options{})
	u, err := c.Discover(ctx, base+"/products/tee")
	if err != nil || u != base+"/products/tee?affordances=1" {
		t.Fatalf("%q %v", u, err)
	}
	g, err := c.DiscoverGraph(ctx, base+"/products/tee")
	if err != nil || g.Action("addToCart") == nil {
		t.Fatalf("%v %+v", err, g)
	}
	c = client.New(client.Options{})
	// Only the <link> element, no header.
	html := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`<html><head><LINK href='/g?affordances=1&amp;x=1' REL="stylesheet affordances"></head></html>`))
	}))
	defer html.Close()
	if u, err := c.Discover(ctx, html.URL+"/a/b"); err != nil || u != html.URL+"/g?affordances=1&x=1" {
		t.Errorf("link element: %q %v", u, err)
	}
}

func TestClient_RetriesARateLimitedCallAsAsked(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", protocol.MediaType)
		if calls.Add(1) < 3 {
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(429)
			w.Write([]byte(`{"ok":false,"error":{"code":"rate_limited","message":"slow down"}}`))
			return
		}
		w.Write([]byte(`{"ok":true}`))
	}))
	defer srv.Close()
	c := client.New(client.Options{Retries: 1, MaxRetryWait: 10 * time.Millisecond})
	if _, err := c.Call(ctx, srv.URL, "x", nil); !client.IsCode(err, protocol.CodeRateLimited) {
		t.Fatalf("one retry is not enough: %v", err)
	}
	calls.Store(0)
	c = client.New(client.Options{Retries: 2, MaxRetryWait: 10 * time.Millisecond})
	if _, err := c.Call(ctx, srv.URL, "x", nil); err != nil || calls.Load() != 3 {
		t.Fatalf("two retries: %v after %d calls", err, calls.Load())
	}
}

func TestClient_SendsOriginOnCookieCallsOnly(t *testing.T) {
	var origin atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		origin.Store(r.Header.Get("Origin"))
		w.Header().Set("Content-Type", protocol.MediaType)
		w.Write([]byte(`{"ok":true}`))
	}))
	defer srv.Close()
	client.New(client.Options{}).Call(ctx, srv.URL+"/p?q=1", "x", nil)
	if origin.Load() != srv.URL {
		t.Errorf("cookie call Origin %q, want %q", origin.Load(), srv.URL)
	}
	client.New(client.Options{Token: "t"}).Call(ctx, srv.URL+"/p", "x", nil)
	if origin.Load() != "" {
		t.Errorf("bearer call sent Origin %q", origin.Load())
	}
}

// A site that could not reach its data answers 503 unavailable with
// Retry-After: the client asks again with the same key, and the call runs
// once; a 503 without Retry-After is final.
func TestClient_RetriesAnUnreachableSiteWithTheSameKey(t *testing.T) {
	var calls atomic.Int32
	keys := map[string]bool{}
	var mu sync.Mutex
	retryAfter := "1"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		keys[r.Header.Get(protocol.IdempotencyHeader)] = true
		ra := retryAfter
		mu.Unlock()
		w.Header().Set("Content-Type", protocol.MediaType)
		if calls.Add(1) < 3 {
			if ra != "" {
				w.Header().Set("Retry-After", ra)
			}
			w.WriteHeader(503)
			w.Write([]byte(`{"ok":false,"error":{"code":"unavailable","message":"The site cannot reach its data just now."}}`))
			return
		}
		w.Write([]byte(`{"ok":true}`))
	}))
	defer srv.Close()
	c := client.New(client.Options{Retries: 3, MaxRetryWait: 10 * time.Millisecond})
	if _, err := c.Call(ctx, srv.URL, "x", nil); err != nil || calls.Load() != 3 || len(keys) != 1 {
		t.Fatalf("%v after %d calls with %d keys", err, calls.Load(), len(keys))
	}
	calls.Store(0)
	mu.Lock()
	retryAfter = ""
	mu.Unlock()
	if _, err := c.Call(ctx, srv.URL, "x", nil); !client.IsCode(err, protocol.CodeUnavailable) || calls.Load() != 1 {
		t.Fatalf("a 503 without Retry-After: %v after %d calls", err, calls.Load())
	}
}
