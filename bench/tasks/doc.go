// Package tasks is a benchmark of agents doing a person's tasks on the
// demo store: 33 tasks (writes with sign-in, approvals, things that cannot
// be done, questions), each with its starting state and a check that reads
// the database, and scripted agents that do them on five paths (the
// Affordances graph, with and without the site index, the store's MCP
// endpoint, and Playwright MCP's snapshots and WebMCP tools), logging what
// a model on each path would read and write. RunModel does the same with a
// real model behind an OpenAI-compatible endpoint.
//
// go run ./bench -only tasks measures it; see README.md.
package tasks
