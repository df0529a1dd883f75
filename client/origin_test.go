package client_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/affordances-go/affordances/client"
	"github.com/affordances-go/affordances/protocol"
)

// The bearer token goes only to the page's origin: a delta's redirect, an
// approval page or an HTTP redirect to another origin is refused, and the
// other origin never sees the token.
func TestClient_TheTokenStaysOnThePagesOrigin(t *testing.T) {
	var leaked atomic.Int32
	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "" {
			leaked.Add(1)
		}
		w.Header().Set("Content-Type", protocol.MediaType)
		w.Write([]byte(`{"v":"0","page":"/","route":"/","entities":{},"actions":[]}`))
	}))
	defer evil.Close()
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/redirects":
			w.Header().Set("Content-Type", protocol.MediaType)
			w.Write([]byte(`{"ok":true,"redirect":"` + evil.URL + `/orders/1"}`))
		case "/approves":
			w.Header().Set("Content-Type", protocol.MediaType)
			w.WriteHeader(428)
			w.Write([]byte(`{"ok":false,"error":{"code":"confirm_required","message":"Order?"},"approvalUrl":"` + evil.URL + `/approvals/x"}`))
		case "/moved":
			http.Redirect(w, r, evil.URL+"/", http.StatusFound)
		}
	}))
	defer site.Close()
	ctx := context.Background()
	c := client.New(client.Options{Token: "secret", FollowRedirects: true,
		OnApprovalNeeded: func(context.Context, client.SiteApproval) error { return nil }})
	if _, err := c.Call(ctx, site.URL+"/redirects", "go", nil); !errors.Is(err, client.ErrCrossOrigin) {
		t.Errorf("a redirect to another origin: %v", err)
	}
	if _, err := c.Call(ctx, site.URL+"/approves", "order", nil); !errors.Is(err, client.ErrCrossOrigin) {
		t.Errorf("an approval page on another origin: %v", err)
	}
	if _, err := c.Graph(ctx, site.URL+"/moved"); !errors.Is(err, client.ErrCrossOrigin) {
		t.Errorf("an HTTP redirect to another origin: %v", err)
	}
	if n := leaked.Load(); n != 0 {
		t.Fatalf("the token reached another origin %d times", n)
	}
}

// A call whose answer is lost is sent again with the same Idempotency-Key,
// and each call has a key of its own.
func TestClient_RetriesALostAnswerWithTheSameKey(t *testing.T) {
	var keys []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		keys = append(keys, r.Header.Get("Idempotency-Key"))
		if len(keys) == 1 {
			// The call ran; the answer is lost with the connection.
			conn, _, _ := w.(http.Hijacker).Hijack()
			conn.Close()
			return
		}
		w.Header().Set("Content-Type", protocol.MediaType)
		w.Write([]byte(`{"ok":true,"message":"done"}`))
	}))
	defer srv.Close()
	c := client.New(client.Options{Token: "t", Retries: 2})
	res, err := c.Call(context.Background(), srv.URL+"/p", "go", nil)
	if err != nil || res.Delta.Message != "done" {
		t.Fatalf("%v %+v", err, res)
	}
	if len(keys) != 2 || keys[0] == "" || keys[0] != keys[1] {
		t.Fatalf("keys %q", keys)
	}
	c.Call(context.Background(), srv.URL+"/p", "go", nil)
	if len(keys) != 3 || keys[2] == keys[0] {
		t.Errorf("a new call reused the key: %q", keys)
	}
}

// A retry that finds the first try still running (409 with Retry-After:
// the site holds the key) waits and asks again with the same key, and
// gets the first try's answer; a 409 without Retry-After (the key was
// used for another call) is an error at once.
func TestClient_WaitsForTheFirstTryOfItsKey(t *testing.T) {
	var keys []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		keys = append(keys, r.Header.Get("Idempotency-Key"))
		w.Header().Set("Content-Type", protocol.MediaType)
		switch {
		case r.URL.Path == "/other":
			w.WriteHeader(http.StatusConflict)
			w.Write([]byte(`{"ok":false,"error":{"code":"unavailable","message":"this Idempotency-Key was used for another call"}}`))
		case len(keys) == 1:
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(http.StatusBadGateway) // the proxy lost the answer; the call runs on
		case len(keys) == 2:
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusConflict)
			w.Write([]byte(`{"ok":false,"error":{"code":"unavailable","message":"a call with this Idempotency-Key is still running"}}`))
		default:
			w.Header().Set("Idempotent-Replayed", "true")
			w.Write([]byte(`{"ok":true,"message":"done"}`))
		}
	}))
	defer srv.Close()
	c := client.New(client.Options{Token: "t", Retries: 3, MaxRetryWait: 10 * time.Millisecond})
	res, err := c.Call(context.Background(), srv.URL+"/p", "go", nil)
	if err != nil || res.Delta.Message != "done" {
		t.Fatalf("%v %+v", err, res)
	}
	if len(keys) != 3 || keys[0] == "" || keys[0] != keys[1] || keys[1] != keys[2] {
		t.Fatalf("keys %q", keys)
	}
	keys = nil
	if _, err := c.Call(context.Background(), srv.URL+"/other", "go", nil); err == nil || len(keys) != 1 {
		t.Errorf("a key used for another call: %v after %d tries", err, len(keys))
	}
}
