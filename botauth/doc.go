// Package botauth verifies and makes Web Bot Auth signatures: HTTP message
// signatures (RFC 9421) with which an agent says who it is on every
// request, with an Ed25519 key it publishes in a key directory
// (/.well-known/http-message-signatures-directory) or that the site knows.
//
// It implements the subset Web Bot Auth uses and nothing more: a
// Signature-Input member tagged "web-bot-auth" whose covered components
// are strings without parameters (@authority, @method, @path, @query,
// @scheme, @request-target, @target-uri, header fields), created and
// expires, keyid as the key's JWK thumbprint (RFC 7638), alg ed25519 when
// given, and a nonce, which it does not remember: a signature can be
// replayed to the same site until it expires, never to another (it covers
// @authority). It is proven against RFC 9421's Ed25519 example and, in
// both directions, against Cloudflare's web-bot-auth package.
//
// A site verifies with a [Verifier] (site.Options.Agents takes one): an
// unsigned request is simply not verified; a signed one whose signature is
// wrong is refused. An agent signs with a [Signer], or every request of an
// http.Client with a [Transport].
package botauth
