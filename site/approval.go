package site

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
)

// Approvals are an extension of v0 (protocol.ActionSummary.Approval; the
// data and the store are package site/approval): a
// confirm action with approval runs for an agent only once the person it
// acts for approved that exact call on the site itself, signed in, on an
// approval page. The approval is bound to the person's account, the page,
// the action and the exact input, carries the summary they read, expires,
// and is used at most once; when the call comes back, the summary is
// computed again, and if it changed, the person is asked again. It is
// bound to the credential that asked (a token or a session): another
// credential of the same person cannot use it, nor can any once that one
// is revoked. The person can withdraw it until it is used. What the
// summary was built from (its basis, see [ApprovalBasis]) is kept with it,
// so that the action can check where it runs, inside its own transaction,
// that it acts on the state the person approved ([Request.CheckApproved]).

// newSecretID returns 192 random bits, base64url: the id of an approval,
// the claim of an idempotency key.
func newSecretID() string {
	b := make([]byte, 24)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// shortID is an approval id as logs may show it.
func shortID(id string) string {
	if len(id) > 6 {
		return id[:6] + "…"
	}
	return id
}

// inputDigest is the hex SHA-256 of an input's canonical JSON (object keys
// sorted, as encoding/json writes maps).
func inputDigest(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}
