package shop_test

import (
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/affordances-go/affordances/site"
)

// The store's PostgreSQL driver reports a connection the database closed
// under a query (a restart) as pgconn.ErrConnClosed, wrapped: the site
// answers 503, to retry, not 500. The cluster's restart test met it when
// the authenticator read a token during the outage.
func TestUnreachable_PgxClosedConnection(t *testing.T) {
	err := fmt.Errorf("tokens: reading a token: failed to deallocate cached statement(s): %w", pgconn.ErrConnClosed)
	if !site.Unreachable(err) {
		t.Errorf("Unreachable(%v) = false: a lost database would answer 500", err)
	}
}
