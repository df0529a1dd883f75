package main

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/affordances-go/affordances/protocol"
)

// A server's text reaches the terminal without control sequences: a name
// with ESC sequences cannot clear the screen or paint around a prompt,
// and a bidirectional override cannot reorder it.
func TestTerminal_ServerTextHasNoControlSequences(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", protocol.MediaType)
		w.Write([]byte(`{"v":"0","page":"/","route":"/","entities":{"name":"Eve\u001b[2J\u001b[H\u009b31m\u202eevil"},` +
			`"actions":[],"md":"# Hi \u001b]8;;http://evil\u0007link\u001b]8;;\u0007 \u0000"}`))
	}))
	defer srv.Close()
	var out, errb bytes.Buffer
	code := run([]string{"get", srv.URL + "/"}, strings.NewReader(""), &out, &errb, func(string) string { return "" })
	got := out.String() + errb.String()
	if code != 0 {
		t.Fatalf("exit %d: %s", code, got)
	}
	for _, bad := range []string{"\x1b", "\u009b", "\u202e", "\x07", "\x00"} {
		if strings.Contains(got, bad) {
			t.Errorf("%q reached the terminal:\n%q", bad, got)
		}
	}
	if !strings.Contains(got, "Eve") || !strings.Contains(got, "evil") {
		t.Errorf("the text itself is gone:\n%s", got)
	}
}
