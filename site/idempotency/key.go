package idempotency

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
)

// Fingerprint is what makes two calls under one key the same call: the
// page's path, the action, the input as the door decoded it, confirm and
// the approval, hashed (hex SHA-256 of their JSON). A repeat with another
// fingerprint is refused.
func Fingerprint(page, action string, input any, confirm bool, approval string) string {
	b, _ := json.Marshal(struct {
		Page     string `json:"p"`
		Action   string `json:"a"`
		Input    any    `json:"i"`
		Confirm  bool   `json:"c"`
		Approval string `json:"ap"`
	}{page, action, input, confirm, approval})
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}
