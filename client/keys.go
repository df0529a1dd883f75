package client

import (
	"crypto/rand"
	"encoding/base64"
)

// newKey returns a new idempotency key (protocol.IdempotencyHeader): 128
// random bits. The client sends a new key with every call that is not a
// read, and the same key each time it sends that call again.
func newKey() string {
	b := make([]byte, 16)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}
