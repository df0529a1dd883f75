// Package overload pushes the demo store past what it can serve and checks
// what the site promises there: calls past the admission limit
// (shop.Options.MaxInFlight) answer 503 with Retry-After at once, the
// calls it admits stay fast, public pages keep being served, no write is
// lost or doubled, and full service is back within seconds of the load
// stopping.
//
// The test measures the store's capacity first (closed-loop callers), then
// sends an open-loop load at twice that rate, on SQLite served directly
// and on PostgreSQL with three instances behind nginx:
//
//	go test ./examples/shop/overload -v -count=1
//
// AFFORDANCES_OVERLOAD sets how long the load lasts (a Go duration; 3s by
// default, the form CI runs); go run ./bench -only overload runs it for a
// minute.
package overload
