package mcp_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"strconv"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site"
	"github.com/affordances-go/affordances/site/mcp"
)

// soakCount is how many of each kind of request the soak sends: a few
// hundred in the suite, AFFORDANCES_SOAK=10000 (go run ./bench -only soak
// sets it) for the long run.
func soakCount() int {
	if n, err := strconv.Atoi(os.Getenv("AFFORDANCES_SOAK")); err == nil && n > 0 {
		return n
	}
	return 300
}

// settled is the process's goroutines and live heap once it is quiet.
func settled() (goroutines int, heap uint64) {
	var m runtime.MemStats
	for range 5 {
		runtime.GC()
		time.Sleep(20 * time.Millisecond)
	}
	runtime.ReadMemStats(&m)
	return runtime.NumGoroutine(), m.HeapInuse
}

// post sends one JSON-RPC message as a host without an SDK would, and
// returns the session id the server gave.
func post(t *testing.T, hc *http.Client, url, session, body string) string {
	req, _ := http.NewRequest("POST", url, bytes.NewReader([]byte(body)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	}
	res, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	if res.StatusCode >= 300 {
		t.Fatalf("%s: %d", body, res.StatusCode)
	}
	return res.Header.Get("Mcp-Session-Id")
}

// The MCP endpoint never leaks: sessions opened and abandoned, stateless
// requests of the 2026-07-28 protocol (server/discover included) and
// requests of 2025-11-25 leave the process's goroutines and heap where
// they were once the sessions time out.
func TestSoak_TheEndpointLeavesNothingBehind(t *testing.T) {
	n := soakCount()
	s := site.New(site.Options{Name: "soak", Logger: slog.New(slog.DiscardHandler), AuditLogger: slog.New(slog.DiscardHandler)})
	p := s.Page("/", site.PageOptions{Description: "Home", Load: func(r *site.Request) (*site.State, error) { return &site.State{}, nil }})
	site.Handle(p, site.Action{Name: "ping", Description: "Ping", Expose: protocol.ExposePublic, ReadOnly: true},
		func(r *site.Request, in struct{}) (site.Done, error) { return site.Done{Message: "pong"}, nil })
	quiet := slog.New(slog.DiscardHandler)
	mcp.Mount(s, "/mcp", &mcp.Options{Logger: quiet, SessionTimeout: 300 * time.Millisecond})
	s.Mount("/mcp-stateless", mcp.Handler(s, &mcp.Options{Logger: quiet, Stateless: true}))
	srv := httptest.NewServer(s)
	defer srv.Close()
	raw := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 30 * time.Second}
	ctx := context.Background()

	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"soak","version":"0"}}}`
	abandon := func() {
		id := post(t, raw, srv.URL+"/mcp", "", initialize)
		if id == "" {
			t.Fatal("no session id")
		}
		post(t, raw, srv.URL+"/mcp", id, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		post(t, raw, srv.URL+"/mcp", id, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
		// and never come back, nor DELETE the session
	}
	connect := func(version string) {
		hc := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 30 * time.Second}
		var opts *sdk.ClientSessionOptions
		if version != "" {
			opts = &sdk.ClientSessionOptions{ProtocolVersion: version}
		}
		cs, err := sdk.NewClient(&sdk.Implementation{Name: "soak", Version: "0"}, nil).Connect(ctx,
			&sdk.StreamableClientTransport{Endpoint: srv.URL + "/mcp-stateless", HTTPClient: hc}, opts)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "ping", Arguments: map[string]any{}}); err != nil {
			t.Fatal(err)
		}
		cs.Close()
	}
	// Warm every path once, then measure from there.
	abandon()
	connect("")
	connect("2025-11-25")
	time.Sleep(400 * time.Millisecond)
	g0, h0 := settled()

	start := time.Now()
	for range n {
		abandon()
	}
	for range n {
		connect("") // 2026-07-28: server/discover, then a stateless call
	}
	for range n {
		connect("2025-11-25")
	}
	took := time.Since(start)
	time.Sleep(500 * time.Millisecond) // past the sessions' timeout
	var g1 int
	var h1 uint64
	deadline := time.Now().Add(10 * time.Second)
	for {
		g1, h1 = settled()
		if g1 <= g0+5 || time.Now().After(deadline) {
			break
		}
	}
	t.Logf("soak: %d abandoned sessions, %d stateless 2026-07-28 clients, %d 2025-11-25 clients in %s; goroutines %d → %d, heap %d → %d KiB",
		n, n, n, took.Round(time.Millisecond), g0, g1, h0>>10, h1>>10)
	if g1 > g0+5 {
		buf := make([]byte, 1<<16)
		t.Errorf("goroutines %d after the soak, %d before:\n%s", g1, g0, buf[:runtime.Stack(buf, true)])
	}
	if h1 > h0+16<<20 {
		t.Errorf("heap %d KiB after the soak, %d before", h1>>10, h0>>10)
	}
}
