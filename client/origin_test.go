package client_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

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
