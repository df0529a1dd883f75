package client_test

import (
	"context"
	"encoding/pem"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/affordances-go/affordances/client"
	"github.com/affordances-go/affordances/site"
)

// A site on a development certificate is reached once its root is
// trusted (Options.RootCAs, CertPool), and refused before.
func TestRootCAs_ADevelopmentCertificate(t *testing.T) {
	s := site.New(site.Options{Name: "dev", Logger: slog.New(slog.DiscardHandler)})
	srv := httptest.NewTLSServer(s)
	defer srv.Close()
	ctx := context.Background()
	if _, err := client.New(client.Options{}).Index(ctx, srv.URL); err == nil {
		t.Fatal("an untrusted certificate was accepted")
	}
	file := filepath.Join(t.TempDir(), "dev.pem")
	os.WriteFile(file, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o600)
	pool, err := client.CertPool(file)
	if err != nil {
		t.Fatal(err)
	}
	idx, err := client.New(client.Options{RootCAs: pool}).Index(ctx, srv.URL)
	if err != nil || idx.Name != "dev" {
		t.Fatalf("with the certificate trusted: %v %v", idx, err)
	}
	if _, err := client.CertPool(filepath.Join(t.TempDir(), "none.pem")); err == nil {
		t.Error("a missing file")
	}
	os.WriteFile(file, []byte("not a certificate"), 0o600)
	if _, err := client.CertPool(file); err == nil {
		t.Error("a file without a certificate")
	}
}
