package main

import (
	"encoding/pem"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site"
)

// whoSite is a site on a development certificate whose page says who
// calls, by the session cookie.
func whoSite(t *testing.T) (*httptest.Server, string) {
	t.Helper()
	s := site.New(site.Options{Name: "dev", Logger: slog.New(slog.DiscardHandler),
		Auth: site.AuthFunc(func(r *http.Request) (site.Caller, error) {
			if c, err := r.Cookie("session"); err == nil {
				return site.Caller{ID: "sess-" + c.Value, Mode: protocol.AuthCookie, SignedIn: true, User: c.Value}, nil
			}
			return site.Caller{}, nil
		})})
	s.Page("/me", site.PageOptions{Load: func(r *site.Request) (*site.State, error) {
		who, _ := r.Caller.User.(string)
		if who == "" {
			who = "nobody"
		}
		return &site.State{MD: "# Signed in as " + who + "\n"}, nil
	}})
	srv := httptest.NewTLSServer(s)
	t.Cleanup(srv.Close)
	file := filepath.Join(t.TempDir(), "dev.pem")
	os.WriteFile(file, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o600)
	return srv, file
}

// A site on a development certificate: refused with a hint, reached with
// --cacert or AFFORD_CACERT, in afford and afford check; --cookie hands
// afford a session copied from a browser.
func TestAfford_DevelopmentCertificateAndCookie(t *testing.T) {
	srv, cert := whoSite(t)
	if code, _, errs := afford(t, nil, "get", srv.URL+"/me"); code == 0 || !strings.Contains(errs, "--cacert") {
		t.Fatalf("an untrusted certificate: %d %s", code, errs)
	}
	code, out, errs := afford(t, nil, "get", "--cacert", cert, srv.URL+"/me")
	if code != 0 || !strings.Contains(out, "Signed in as nobody") {
		t.Fatalf("--cacert: %d %s %s", code, out, errs)
	}
	code, out, errs = afford(t, map[string]string{"AFFORD_CACERT": cert}, "get", "--cookie", "session=ann", srv.URL+"/me")
	if code != 0 || !strings.Contains(out, "Signed in as ann") {
		t.Fatalf("AFFORD_CACERT and --cookie: %d %s %s", code, out, errs)
	}
	jar := filepath.Join(t.TempDir(), "jar.json")
	afford(t, map[string]string{"AFFORD_CACERT": cert}, "get", "--cookie", "session=bea", "--cookie-jar", jar, srv.URL+"/me")
	if code, out, _ = afford(t, map[string]string{"AFFORD_CACERT": cert}, "get", "--cookie-jar", jar, srv.URL+"/me"); code != 0 || !strings.Contains(out, "Signed in as bea") {
		t.Fatalf("a --cookie kept in the jar: %d %s", code, out)
	}
	if code, _, errs = afford(t, nil, "get", "--cookie", "no equals sign", srv.URL+"/me"); code != exitUsage {
		t.Fatalf("a malformed --cookie: %d %s", code, errs)
	}
	if code, out, errs = afford(t, nil, "check", "--cacert", cert, srv.URL); strings.Contains(out+errs, "certificate") {
		t.Fatalf("afford check --cacert: %d %s %s", code, out, errs)
	}
}
