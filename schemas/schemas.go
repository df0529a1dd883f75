// Package schemas embeds the JSON Schema 2020-12 files of the protocol's
// documents and the TypeScript declarations generated with them.
//
// The files are generated from package protocol by internal/schemagen; run
// go generate ./... after changing a wire type. They are meant for other
// implementations as much as for this one: tests here validate every golden
// document against them, and the conformance checker validates live servers.
package schemas

import "embed"

//go:generate go run ../internal/schemagen/cmd

// FS holds the generated files, by file name.
//
//go:embed *.schema.json affordances.d.ts
var FS embed.FS
