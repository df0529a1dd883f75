package protocol

// The wire names of the idempotency extension ([ExtensionIdempotency]),
// shared by the site, the client and the MCP doors.
const (
	// IdempotencyHeader carries a call's key: a call sent with one runs at
	// most once per caller and key, and a repeat gets the first answer.
	IdempotencyHeader = "Idempotency-Key"
	// ReplayedHeader is "true" on an answer that repeats a key's first
	// answer instead of running the call again.
	ReplayedHeader = "Idempotent-Replayed"
)

// ValidIdempotencyKey reports whether k can be an idempotency key: 1 to
// 255 visible ASCII characters. A server refuses any other key before
// the call runs, and a client never sends one.
func ValidIdempotencyKey(k string) bool {
	if k == "" || len(k) > 255 {
		return false
	}
	for i := 0; i < len(k); i++ {
		if k[i] < 0x21 || k[i] > 0x7e {
			return false
		}
	}
	return true
}
