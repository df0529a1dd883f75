package botauth

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// Tag is the tag of a Web Bot Auth signature.
const Tag = "web-bot-auth"

// Agent is who signed a request, once the signature is verified.
type Agent struct {
	// KeyID is the thumbprint of the key that signed.
	KeyID string
	// Directory is the origin of the agent's key directory (its
	// Signature-Agent), such as https://agent.example; "" when the key was
	// configured on the site.
	Directory string
	// Name is what the site calls the agent: the configured name of its
	// key, else its directory's host.
	Name string
}

// Error is a signature that is present and not valid: the request is
// refused (401) with Reason.
type Error struct{ Reason string }

func (e *Error) Error() string { return "botauth: " + e.Reason }

func invalid(format string, args ...any) error { return &Error{Reason: fmt.Sprintf(format, args...)} }

// Key is a key an agent is known by on the site, configured rather than
// fetched.
type Key struct {
	// Name names the agent, as the site's audit log and policies say it.
	Name string
	// Public is its Ed25519 public key.
	Public ed25519.PublicKey
}

// Verifier verifies the Web Bot Auth signatures of requests: HTTP message
// signatures (RFC 9421) with Ed25519, tagged "web-bot-auth", covering at
// least @authority and, when the request names its key directory, the
// Signature-Agent header; created and expires within Skew of now; keyid
// the JWK thumbprint of a key the site knows (Keys) or that the agent's
// directory lists (Directories).
type Verifier struct {
	// Keys are keys configured on the site, by any name. They are read
	// once, at the first Verify.
	Keys []Key
	// Directories fetches the key directories agents name, when set.
	Directories *DirectoryFetcher
	// Skew is the clock skew allowed on created and expires. Default: one
	// minute.
	Skew time.Duration
	// MaxValidity bounds expires - created. Default: one day.
	MaxValidity time.Duration
	// Now is the clock. Default: time.Now.
	Now func() time.Time

	once sync.Once
	byID map[string]Key // Keys by thumbprint: Keys must not change after the first Verify
}

// known returns the configured keys by thumbprint, computed once.
func (v *Verifier) known() map[string]Key {
	v.once.Do(func() {
		v.byID = make(map[string]Key, len(v.Keys))
		for _, k := range v.Keys {
			v.byID[Thumbprint(k.Public)] = k
		}
	})
	return v.byID
}

// Verify verifies the request's Web Bot Auth signature. A request without
// one (no Signature-Input tagged web-bot-auth) is not verified: the zero
// Agent and a nil error. A signature that is there and wrong is an
// [*Error] with the reason.
func (v *Verifier) Verify(r *http.Request) (Agent, error) {
	inputs := r.Header.Values("Signature-Input")
	if len(inputs) == 0 {
		return Agent{}, nil
	}
	members, err := parseDictionary(strings.Join(inputs, ", "))
	if err != nil {
		return Agent{}, invalid("Signature-Input cannot be read: %v", err)
	}
	var m *member
	for i := range members {
		if tag, _ := members[i].params.str("tag"); tag == Tag && members[i].isList {
			m = &members[i]
			break
		}
	}
	if m == nil {
		return Agent{}, nil // signatures for something else: not an agent's
	}
	sigs, err := parseDictionary(strings.Join(r.Header.Values("Signature"), ", "))
	if err != nil {
		return Agent{}, invalid("Signature cannot be read: %v", err)
	}
	var sig []byte
	for _, s := range sigs {
		if s.label == m.label && !s.isList {
			sig = s.bytes
		}
	}
	if sig == nil {
		return Agent{}, invalid("no Signature labelled %s", m.label)
	}
	if err := v.checkParams(m); err != nil {
		return Agent{}, err
	}
	directory, err := signatureAgent(r, m.label)
	if err != nil {
		return Agent{}, err
	}
	if !contains(m.items, "@authority") {
		return Agent{}, invalid("the signature does not cover @authority")
	}
	if signatureAgentLine(r) != "" && !contains(m.items, "signature-agent") {
		return Agent{}, invalid("the signature does not cover the Signature-Agent header")
	}
	keyid, _ := m.params.str("keyid")
	agent, pub, err := v.key(r.Context(), keyid, directory)
	if err != nil {
		return Agent{}, err
	}
	base, err := signatureBase(r, m.items, m.params)
	if err != nil {
		return Agent{}, invalid("%v", err)
	}
	if len(sig) != ed25519.SignatureSize || !ed25519.Verify(pub, base, sig) {
		return Agent{}, invalid("the signature does not match the request")
	}
	return agent, nil
}

// VerifyAgent verifies the request's signature for a site
// (site.AgentVerifier): the agent's name, "" when the request is not
// signed, or the reason a signature is refused.
func (v *Verifier) VerifyAgent(r *http.Request) (string, error) {
	a, err := v.Verify(r)
	if err != nil {
		var e *Error
		if errors.As(err, &e) {
			return "", errors.New(e.Reason)
		}
		return "", err
	}
	if a.Name == "" {
		return a.KeyID, nil
	}
	return a.Name, nil
}

// checkParams checks a signature's parameters against the profile.
func (v *Verifier) checkParams(m *member) error {
	now := time.Now
	if v.Now != nil {
		now = v.Now
	}
	skew, maxValidity := v.Skew, v.MaxValidity
	if skew <= 0 {
		skew = time.Minute
	}
	if maxValidity <= 0 {
		maxValidity = 24 * time.Hour
	}
	created, ok := m.params.integer("created")
	if !ok {
		return invalid("the signature has no created time")
	}
	expires, ok := m.params.integer("expires")
	if !ok {
		return invalid("the signature has no expires time")
	}
	t := now().Unix()
	switch {
	case created > t+int64(skew/time.Second):
		return invalid("the signature was created in the future")
	case expires < t-int64(skew/time.Second):
		return invalid("the signature has expired")
	case expires < created:
		return invalid("the signature expires before it was created")
	case expires-created > int64(maxValidity/time.Second):
		return invalid("the signature is valid for longer than %s", maxValidity)
	}
	if alg, ok := m.params.get("alg"); ok && alg != "ed25519" {
		// Any other value, a token "ed25519" included, is not the string
		// the profile names.
		return invalid("the algorithm %v is not supported: \"ed25519\" is", alg)
	}
	if keyid, ok := m.params.str("keyid"); !ok || keyid == "" {
		return invalid("the signature has no keyid")
	}
	return nil
}

// key finds the key of keyid: among the configured keys, else in the
// agent's directory.
func (v *Verifier) key(ctx context.Context, keyid, directory string) (Agent, ed25519.PublicKey, error) {
	if k, ok := v.known()[keyid]; ok {
		return Agent{KeyID: keyid, Name: k.Name}, k.Public, nil
	}
	if directory == "" || v.Directories == nil {
		return Agent{}, nil, invalid("the key %s is not known here", keyid)
	}
	keys, err := v.Directories.Keys(ctx, directory)
	if err != nil {
		return Agent{}, nil, invalid("the key directory %s: %v", directory, err)
	}
	for _, pub := range keys {
		if Thumbprint(pub) == keyid {
			u, _ := url.Parse(directory)
			return Agent{KeyID: keyid, Directory: directory, Name: u.Host}, pub, nil
		}
	}
	return Agent{}, nil, invalid("the key directory %s does not list the key %s", directory, keyid)
}

// signatureAgent reads the Signature-Agent header: the origin of the
// agent's key directory, as an sf-string ("https://agent.example"), a
// dictionary member of the signature's label, or a bare URL.
func signatureAgent(r *http.Request, label string) (string, error) {
	h := signatureAgentLine(r)
	if h == "" {
		return "", nil
	}
	raw := h
	switch {
	case strings.HasPrefix(h, `"`):
		p := &parser{s: h}
		s, err := p.str()
		if err != nil {
			return "", invalid("Signature-Agent cannot be read: %v", err)
		}
		raw = s
	case strings.Contains(h, "="):
		raw = ""
		for part := range strings.SplitSeq(h, ",") {
			k, val, _ := strings.Cut(strings.TrimSpace(part), "=")
			if k == label {
				p := &parser{s: strings.TrimSpace(val)}
				s, err := p.str()
				if err != nil {
					return "", invalid("Signature-Agent cannot be read: %v", err)
				}
				raw = s
			}
		}
		if raw == "" {
			return "", invalid("Signature-Agent names no directory for %s", label)
		}
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.User != nil {
		return "", invalid("Signature-Agent is not an http(s) URL")
	}
	return u.Scheme + "://" + strings.ToLower(u.Host), nil
}

// signatureAgentLine is the Signature-Agent field: every line of it,
// combined as the signature base combines them, so that no line goes
// unchecked.
func signatureAgentLine(r *http.Request) string {
	var parts []string
	for _, v := range r.Header.Values("Signature-Agent") {
		if v = strings.TrimSpace(v); v != "" {
			parts = append(parts, v)
		}
	}
	return strings.Join(parts, ", ")
}

func contains(items []string, name string) bool {
	for _, it := range items {
		if it == name {
			return true
		}
	}
	return false
}
