package protocol

import (
	"fmt"
	"strconv"
)

// MediaType is the media type of every Affordances document. An agent names
// it in Accept to ask for a graph, and in Content-Type when it posts a call.
const MediaType = "application/vnd.affordances+json"

// Version is the major version of the protocol this package speaks, as it
// appears in the "v" field of graphs and site indexes.
const Version = "0"

// MinMajor and MaxMajor bound the protocol majors this package can read.
// A document whose "v" falls outside the range must be refused, because a new
// major is by definition a breaking change.
const (
	MinMajor = 0
	MaxMajor = 0
)

// CheckVersion reports whether a document's "v" field names a major in
// [MinMajor, MaxMajor]. The error explains what was found and what is
// supported, so a client can show it as is.
func CheckVersion(v string) error {
	n, err := strconv.Atoi(v)
	if err != nil || v == "" || (len(v) > 1 && v[0] == '0') || n < 0 {
		return fmt.Errorf("affordances: document version %q is not a protocol major version", v)
	}
	if n < MinMajor || n > MaxMajor {
		return fmt.Errorf("affordances: document is protocol major %d; this package supports majors %d to %d", n, MinMajor, MaxMajor)
	}
	return nil
}
