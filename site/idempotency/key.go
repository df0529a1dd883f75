package idempotency

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
)

// Fingerprint is what makes two calls under one key the same call: the
// page's path, the action, the input as the door decoded it, confirm and
// the approval. A repeat with another fingerprint is refused.
//
// It is the hex HMAC-SHA-256 of their JSON under secret
// (site.Options.Idempotency.Secret), never a plain hash: a store holds
// the fingerprints of sign-ins and sign-ups, and a plain hash of their
// input would test a guess of the password with one hash. Without the
// secret, which lives outside the store, a leaked fingerprint tests
// nothing.
func Fingerprint(secret []byte, page, action string, input any, confirm bool, approval string) string {
	mac := hmac.New(sha256.New, secret)
	json.NewEncoder(mac).Encode(struct {
		Page     string `json:"p"`
		Action   string `json:"a"`
		Input    any    `json:"i"`
		Confirm  bool   `json:"c"`
		Approval string `json:"ap"`
	}{page, action, input, confirm, approval})
	return hex.EncodeToString(mac.Sum(nil))
}
