package recipes

import (
	"fmt"
	"testing"

	"github.com/go-sql-driver/mysql"

	"github.com/affordances-go/affordances/site"
)

// The recipes keep their data in MariaDB, whose driver reports a
// connection the server cut under a query (a restart) as
// mysql.ErrInvalidConn: the site answers 503, to retry with the call's
// Idempotency-Key, not 500. A server's own refusal stays the code's.
func TestUnreachable_MySQLInvalidConnection(t *testing.T) {
	for _, c := range []struct {
		err  error
		want bool
	}{
		{fmt.Errorf("loading the recipe: %w", mysql.ErrInvalidConn), true},
		{mysql.ErrInvalidConn, true},
		{&mysql.MySQLError{Number: 1062, Message: "Duplicate entry 'x' for key 'slug'"}, false},
		{mysql.ErrMalformPkt, false},
	} {
		if got := site.Unreachable(c.err); got != c.want {
			t.Errorf("Unreachable(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}
