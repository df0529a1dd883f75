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

// MariaDB shutting down answers a query with its own error, 1053
// (SQLSTATE 08S01, a connection exception): the recipes' Unreachable
// takes it for a retry, where site.Unreachable, which knows no driver's
// types, cannot. The server's refusals of a query stay the code's.
func TestRecipesUnreachable_ServerShutdown(t *testing.T) {
	for _, c := range []struct {
		err  error
		want bool
	}{
		{fmt.Errorf("listing recipes: %w", &mysql.MySQLError{Number: 1053, SQLState: [5]byte{'0', '8', 'S', '0', '1'}, Message: "Server shutdown in progress"}), true},
		{&mysql.MySQLError{Number: 1927, SQLState: [5]byte{'7', '0', '1', '0', '0'}, Message: "Connection was killed"}, true},
		{&mysql.MySQLError{Number: 1062, SQLState: [5]byte{'2', '3', '0', '0', '0'}, Message: "Duplicate entry 'x' for key 'slug'"}, false},
		{&mysql.MySQLError{Number: 1064, SQLState: [5]byte{'4', '2', '0', '0', '0'}, Message: "You have an error in your SQL syntax"}, false},
		{mysql.ErrInvalidConn, true},
		{mysql.ErrMalformPkt, false},
	} {
		if got := unreachable(c.err); got != c.want {
			t.Errorf("unreachable(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}
