// Package hostile is a black-box test suite of the demo store, run over
// loopback as an attacker would run it: malformed bodies, the CSRF matrix,
// attempts to bypass confirmation, one person reaching for another's data,
// injection, limits and slow clients, and concurrent buyers. Every case is
// a row of a table with the request, the status and the error code it must
// get, and a check that the store's state did not change when it must not.
//
//	go test ./examples/shop/hostile -v
package hostile
