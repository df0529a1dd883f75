package main

import (
	"context"
	"crypto/ed25519"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"

	"github.com/affordances-go/affordances/botauth"
	"github.com/affordances-go/affordances/examples/shop/shop"
	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site/ratelimit"
)

// signedCall measures what a verified agent with a scoped token costs: an
// addToCart signed with Web Bot Auth (the store verifying it with a key it
// knows) and made with a token granted addToCart only, against the same
// call unsigned, with the demo account's unlimited token.
func signedCall(ctx context.Context, e *Env, smoke bool) ([]Row, error) {
	_, key, err := ed25519.GenerateKey(nil)
	if err != nil {
		return nil, err
	}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	verifier := &botauth.Verifier{Keys: []botauth.Key{{Name: "bench-agent", Public: key.Public().(ed25519.PublicKey)}}}
	app := shop.New(e.store, shop.Options{Logger: quiet, DefaultLimit: ratelimit.PerMinute(1<<40, 1<<30), NoApprovals: true, Agents: verifier})
	scoped, err := e.store.CreateGrantedToken(ctx, e.userID, "bench scoped", shop.Grant{Actions: []string{"addToCart"}})
	if err != nil {
		return nil, err
	}
	// The signatures are made before the clock runs (an agent's cost, not
	// the site's), and used in turn: the site keeps no nonces.
	signer := &botauth.Signer{Key: key}
	var pool [64][2]string
	for i := range pool {
		r := httptest.NewRequest("POST", callPath, nil)
		if err := signer.Sign(r); err != nil {
			return nil, err
		}
		pool[i] = [2]string{r.Header.Get("Signature-Input"), r.Header.Get("Signature")}
	}
	n := 0
	signed := func() error {
		e.beforeAdd(ctx)
		sig := pool[n%len(pool)]
		n++
		if w := serveOnce(app, "POST", callPath, addToCartBody, "Content-Type", protocol.MediaType, "Authorization", "Bearer "+scoped,
			"Signature-Input", sig[0], "Signature", sig[1]); w.Code != 200 {
			return fmt.Errorf("the signed call: status %d: %s", w.Code, w.Body)
		}
		return nil
	}
	e.resetCart(ctx)
	ours, base, err := compare(signed, e.addToCart(ctx, e.app), 7, smoke)
	e.resetCart(ctx)
	if err != nil {
		return nil, err
	}
	cost := func(r result) string { return fmt.Sprintf("%s, %.0f allocs", dur(ns(r.nsPerOp)), r.allocsPerOp) }
	return []Row{{Name: "call addToCart signed (Web Bot Auth) with a scoped token vs an unsigned bearer call",
		Ours: cost(ours), Baseline: cost(base), Ratio: ratio(vs(ours, base), 1), Goal: "≤ 1.15×",
		Met:  metOrSmoke(smoke, vs(ours, base) <= 1.15),
		Note: "Ed25519 verification of the signature, the token's scopes checked in the pipeline"}}, nil
}
