// Package e2e holds the tests that run the library's client, its
// conformance checker and the protocol guide's examples against the demo
// store. They live beside the store, in the examples module, so that the
// library's own module needs none of the store's dependencies (SQLite,
// PostgreSQL, Redis, OpenTelemetry).
package e2e
