// Package protocol holds the wire types of the Affordances protocol, version 0.
//
// Every JSON document that a server sends or an agent posts has one Go type
// here: [Graph] describes a page for an agent, [ActionDescriptor] one thing
// the agent can do on it, [Call] asks the server to do it, [Delta] reports
// what changed, and [SiteIndex] lists a whole site for planning.
//
// The package is the bottom of the project: it imports nothing of it, and
// the server library, the client, the conformance checker and the schema
// generator all build on it. The JSON Schemas and TypeScript declarations in
// the repository's schemas/ folder are generated from these types, so the
// Go source is the single description of the wire format.
//
// Decoding follows the protocol's rule for additive change: fields this
// package does not know are ignored. Encoding leaves out the optional fields
// that are empty, and always writes the required ones, even when empty
// (an empty entity map is written as {}, an empty action list as []).
package protocol
