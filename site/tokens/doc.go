// Package tokens is a ready-made kit for API tokens: what an adopter
// needs so that agents (and MCP hosts, which send no cookies) can act for
// a person with a bearer token, without writing a table, a hash or a page.
//
// A [Kit] has a [Store] (the [SQL] store keeps tokens in the
// application's own database: SQLite, PostgreSQL or MySQL/MariaDB; the
// [Memory] store is for tests), and gives:
//
//   - [Kit.Caller], which turns a request's bearer token into the
//     [site.Caller] of its owner, with the token's scopes, for the
//     application's Auth to call first;
//   - [Kit.Actions] and [Kit.Entities], the person's view of their tokens
//     (list, create, revoke) on a page of the application's, and
//     [Kit.Mount], a whole page with its own template;
//   - a [Grant] per token: the actions it may run, when it expires, and an
//     optional standing approval (so much per call and per day) that the
//     application checks against its own amounts.
//
// Only a SHA-256 hash of each secret is stored: secrets are 256 random
// bits, so a leaked table hands out no working token. A new token is
// shown to its owner once, on the page, after the form that made it.
// Making and revoking tokens are people-only actions: no agent, with a
// token or riding the person's cookies, can make itself one.
package tokens
