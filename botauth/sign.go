package botauth

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"net/http"
	"time"
)

// Signer signs requests as a Web Bot Auth agent: an HTTP message signature
// with Ed25519 over @authority (and Signature-Agent when it names a key
// directory), labelled sig1, tagged web-bot-auth, with created, expires,
// a random nonce and the key's thumbprint as keyid.
type Signer struct {
	// Key is the agent's private key.
	Key ed25519.PrivateKey
	// Agent, when set, is the origin of the agent's key directory
	// ("https://agent.example"), sent as Signature-Agent and covered.
	Agent string
	// Validity is how long a signature is valid. Default: five minutes.
	Validity time.Duration
	// Now is the clock. Default: time.Now.
	Now func() time.Time
}

// KeyID is the signer's keyid: its key's JWK thumbprint.
func (s *Signer) KeyID() string { return Thumbprint(s.Key.Public().(ed25519.PublicKey)) }

// Sign adds Signature-Agent (when set), Signature-Input and Signature to
// r, replacing any signature it had.
func (s *Signer) Sign(r *http.Request) error {
	now := time.Now
	if s.Now != nil {
		now = s.Now
	}
	validity := s.Validity
	if validity <= 0 {
		validity = 5 * time.Minute
	}
	items := []string{"@authority"}
	r.Header.Del("Signature-Agent")
	if s.Agent != "" {
		r.Header.Set("Signature-Agent", quote(s.Agent))
		items = append(items, "signature-agent")
	}
	nonce := make([]byte, 64)
	rand.Read(nonce)
	created := now().Unix()
	ps := params{
		{"created", created},
		{"expires", created + int64(validity/time.Second)},
		{"keyid", s.KeyID()},
		{"alg", "ed25519"},
		{"nonce", base64.StdEncoding.EncodeToString(nonce)},
		{"tag", Tag},
	}
	base, err := signatureBase(r, items, ps)
	if err != nil {
		return err
	}
	sig := ed25519.Sign(s.Key, base)
	r.Header.Set("Signature-Input", "sig1="+serializeParams(items, ps))
	r.Header.Set("Signature", "sig1=:"+base64.StdEncoding.EncodeToString(sig)+":")
	return nil
}

// Transport signs every request a client sends.
type Transport struct {
	Signer *Signer
	// Base sends the requests. Default: http.DefaultTransport.
	Base http.RoundTripper
}

// RoundTrip implements http.RoundTripper: it signs a copy of the request.
func (t *Transport) RoundTrip(r *http.Request) (*http.Response, error) {
	r2 := r.Clone(r.Context())
	if err := t.Signer.Sign(r2); err != nil {
		return nil, err
	}
	base := t.Base
	if base == nil {
		base = http.DefaultTransport
	}
	return base.RoundTrip(r2)
}
