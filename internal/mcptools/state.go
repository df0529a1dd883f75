package mcptools

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"time"
)

// ConfirmState is what the server hands out when it asks a person to
// approve a confirm action, and gets back when the call resumes. It binds
// the approval to exactly one call: this caller, this action on this page,
// this input. It is signed, expires, and works once.
type ConfirmState struct {
	Caller string `json:"c"` // the caller's mode and id
	Action string `json:"a"`
	Page   string `json:"p"`
	Input  string `json:"i"` // hex SHA-256 of the input as sent
	Expiry int64  `json:"x"` // Unix seconds
	Nonce  string `json:"n"`
	// Approval is the site approval the call waits for, when the action
	// needs the person's approval on the site.
	Approval string `json:"ap,omitempty"`
	// Basis is the basis of the summary the person is asked about (see
	// site.ApprovalBasis), given back with the confirmed call.
	Basis string `json:"b,omitempty"`
}

// Sign writes a state as base64url(JSON) "." base64url(HMAC-SHA256).
func Sign(secret []byte, st ConfirmState) string {
	b, _ := json.Marshal(st)
	p := base64.RawURLEncoding.EncodeToString(b)
	return p + "." + base64.RawURLEncoding.EncodeToString(mac(secret, p))
}

func mac(secret []byte, payload string) []byte {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(payload))
	return m.Sum(nil)
}

// ErrBadState is the error of a state that does not resume this call.
var ErrBadState = errors.New("the approval does not match this call: it was altered, used already, expired, or made for another call")

// Verify checks a state's signature, expiry and binding to want (whose
// Nonce and Expiry are ignored), and uses its nonce up.
func Verify(secret []byte, used *Nonces, s string, want ConfirmState, now time.Time) (ConfirmState, error) {
	p, sig, ok := strings.Cut(s, ".")
	if !ok {
		return ConfirmState{}, ErrBadState
	}
	got, err := base64.RawURLEncoding.DecodeString(sig)
	if err != nil || !hmac.Equal(got, mac(secret, p)) {
		return ConfirmState{}, ErrBadState
	}
	b, err := base64.RawURLEncoding.DecodeString(p)
	var st ConfirmState
	if err != nil || json.Unmarshal(b, &st) != nil {
		return ConfirmState{}, ErrBadState
	}
	if now.Unix() > st.Expiry || st.Caller != want.Caller || st.Action != want.Action || st.Page != want.Page || st.Input != want.Input {
		return ConfirmState{}, ErrBadState
	}
	if !used.use(st.Nonce, time.Unix(st.Expiry, 0)) {
		return ConfirmState{}, ErrBadState
	}
	return st, nil
}

// NewNonce returns a random nonce for a state.
func NewNonce() string {
	b := make([]byte, 16)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// Nonces remembers the nonces of approvals used, until they expire. With
// several instances, an approval could be used once on each: share
// Options.Secret and send a person's session to one instance, or accept it.
type Nonces struct {
	mu   sync.Mutex
	used map[string]time.Time
}

// NewNonces returns an empty set of used nonces.
func NewNonces() *Nonces { return &Nonces{used: map[string]time.Time{}} }

// use records a nonce and reports whether it was not used before.
func (n *Nonces) use(nonce string, expiry time.Time) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	now := time.Now()
	if len(n.used) > 1000 {
		for k, exp := range n.used {
			if now.After(exp) {
				delete(n.used, k)
			}
		}
	}
	if _, seen := n.used[nonce]; seen {
		return false
	}
	n.used[nonce] = expiry
	return true
}

// Digest is the fingerprint of an input an approval is bound to.
func Digest(input []byte) string {
	h := sha256.Sum256(input)
	return hex.EncodeToString(h[:])
}
