package client

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net/http"
	"os"
)

// CertPool returns the system's trusted roots with the PEM certificates of
// files added: a development certificate (mkcert's root, a self-signed
// one) for Options.RootCAs, beside the ones every site is trusted by. A
// file that holds no certificate is an error.
func CertPool(files ...string) (*x509.CertPool, error) {
	pool, err := x509.SystemCertPool()
	if err != nil || pool == nil {
		pool = x509.NewCertPool()
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("client: reading the certificate file: %w", err)
		}
		if !pool.AppendCertsFromPEM(b) {
			return nil, fmt.Errorf("client: %s holds no PEM certificate", f)
		}
	}
	return pool, nil
}

// withRoots returns a copy of hc whose transport trusts roots, leaving
// hc as it is. A transport that is not an *http.Transport is kept: its
// owner chose how it trusts.
func withRoots(hc *http.Client, roots *x509.CertPool) *http.Client {
	base, ok := hc.Transport.(*http.Transport)
	if hc.Transport == nil {
		base, ok = http.DefaultTransport.(*http.Transport), true
	}
	if !ok {
		return hc
	}
	t := base.Clone()
	if t.TLSClientConfig == nil {
		t.TLSClientConfig = &tls.Config{}
	}
	t.TLSClientConfig.RootCAs = roots
	c := *hc
	c.Transport = t
	return &c
}
