package protocol_test

import (
	"strings"
	"testing"

	"github.com/affordances-go/affordances/protocol"
)

func TestValidIdempotencyKey(t *testing.T) {
	for k, want := range map[string]bool{"a": true, "order-7f3c": true, strings.Repeat("k", 255): true,
		"": false, strings.Repeat("k", 256): false, "two words": false, "é": false, "tab\t": false, "nul\x00": false, "del\x7f": false} {
		if protocol.ValidIdempotencyKey(k) != want {
			t.Errorf("ValidIdempotencyKey(%q) = %v", k, !want)
		}
	}
}
