package approval

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"time"
)

// NewID returns 192 random bits, base64url: the unguessable id of an
// approval (and the claim of an idempotency key).
func NewID() string {
	b := make([]byte, 24)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// ShortID is an approval's id as a log may show it.
func ShortID(id string) string {
	if len(id) > 6 {
		return id[:6] + "…"
	}
	return id
}

// Digest is the hex SHA-256 of an input's canonical JSON (object keys
// sorted, as encoding/json writes maps): what [Approval.Input] holds.
func Digest(input any) string {
	b, err := json.Marshal(input)
	if err != nil {
		return ""
	}
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// Refusal says why the approval a call brings does not let it run, or ""
// when it does. call describes the call as an approval asked for it now
// would (its Account, Credential, Page, Action, Input, Summary and
// Basis). pending reports an approval still waiting for the person: the
// call waits on it rather than asking again.
func (a Approval) Refusal(call Approval, now time.Time) (why string, pending bool) {
	switch {
	case a.Account != call.Account:
		return "That approval was given for another person.", false
	case a.Credential != "" && a.Credential != call.Credential:
		return "That approval was asked for with another credential.", false
	case a.Page != call.Page || a.Action != call.Action:
		return "That approval is for another call.", false
	case a.Input != call.Input:
		return "The input differs from what the person approved.", false
	case now.After(a.Expires):
		return "That approval expired.", false
	case a.State == Declined:
		return "The person declined.", false
	case a.State == Used:
		return "That approval was used already.", false
	case a.State == Pending:
		return "Waiting for the person's approval.", true
	case a.Summary != call.Summary || a.Basis != call.Basis:
		return "What the person approved has changed since.", false
	}
	return "", false
}

// Supersedes reports whether n is the request its agent made again for
// the same call as a (the same credential, page, action and input) and
// that still waits for the person at now: a went out of date, since what
// it was for changed (a cart) and the agent asked anew.
func (n Approval) Supersedes(a Approval, now time.Time) bool {
	return n.ID != a.ID && n.State == Pending && n.Expires.After(now) &&
		n.Credential == a.Credential && n.Page == a.Page && n.Action == a.Action && n.Input == a.Input
}
