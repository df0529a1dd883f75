package client

import (
	"crypto/rand"
	"encoding/base64"
)

// IdempotencyHeader is the header of a call's idempotency key (an
// extension of v0 that sites list in their index as "idempotency"):
// the client sends a new key with every call, and the same key when it
// sends the call again.
const IdempotencyHeader = "Idempotency-Key"

// newKey returns a new idempotency key: 128 random bits.
func newKey() string {
	b := make([]byte, 16)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}
