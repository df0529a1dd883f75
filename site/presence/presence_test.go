package presence

import (
	"context"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site"
)

const (
	testRPID   = "localhost"
	testOrigin = "http://localhost:8080"
)

func newPasskeys(t *testing.T) *Passkeys {
	t.Helper()
	p, err := New(Options{RPID: testRPID, RPName: "Test shop", Origins: []string{testOrigin}})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// person is a signed-in person's request on the site.
func person(account, session string) *site.Request {
	return &site.Request{Request: httptest.NewRequest("POST", testOrigin+"/approvals/x", nil),
		Caller: site.Caller{ID: session, Account: account, Mode: protocol.AuthCookie, SignedIn: true}}
}

// enrol registers a soft key for the account.
func enrol(t *testing.T, p *Passkeys, account string) *softKey {
	t.Helper()
	ctx := context.Background()
	ask, err := p.Register(ctx, account)
	if err != nil {
		t.Fatal(err)
	}
	k := newSoftKey(t, testRPID, testOrigin)
	_, _, nonce := readAsk(t, ask)
	if _, err := p.FinishRegistration(ctx, account, nonce, k.create(t, ask), "test key"); err != nil {
		t.Fatalf("registering: %v", err)
	}
	return k
}

func refused(err error) bool {
	var pe *Refusal
	return errors.As(err, &pe)
}

var approvalOf = site.Binding{Origin: testOrigin, Page: "/checkout", Action: "placeOrder",
	Input: "digest-of-the-input", Summary: "Place an order of 1 item. Total: 29.00 EUR.", Credential: "tok-1",
	Approval: "AAAA", Expires: time.Unix(1_900_000_000, 0)}

// An assertion binds exactly what it was asked for, once: refused for
// another input, amount, approval, page or credential, and on replay;
// refused without user verification, from another origin, for another
// account, and with a counter that went back.
func TestPasskeys_AnAssertionBindsExactlyWhatRuns(t *testing.T) {
	p := newPasskeys(t)
	r := person("user:1", "sess-1")
	if need, err := p.Required(r); err != nil || need {
		t.Fatalf("no passkey yet: required %v %v", need, err)
	}
	k := enrol(t, p, "user:1")
	if need, _ := p.Required(r); !need {
		t.Fatal("a passkey, and presence is not required")
	}

	ask, err := p.Challenge(r, approvalOf)
	if err != nil {
		t.Fatal(err)
	}
	proof, _ := k.get(t, ask)
	if err := p.Verify(r, approvalOf, proof); err != nil {
		t.Fatalf("the right assertion: %v", err)
	}
	if err := p.Verify(r, approvalOf, proof); !refused(err) {
		t.Fatalf("a replay: %v", err)
	}

	others := map[string]func(b *site.Binding){
		"another input":    func(b *site.Binding) { b.Input = "digest-of-another-input" },
		"another amount":   func(b *site.Binding) { b.Summary = strings.Replace(b.Summary, "29.00", "290.00", 1) },
		"another approval": func(b *site.Binding) { b.Approval = "BBBB" },
		"another page":     func(b *site.Binding) { b.Page = "/account" },
		"another action":   func(b *site.Binding) { b.Action = "cancelOrder" },
		"another agent":    func(b *site.Binding) { b.Credential = "tok-2" },
		"another expiry":   func(b *site.Binding) { b.Expires = b.Expires.Add(time.Hour) },
		"another site":     func(b *site.Binding) { b.Origin = "https://evil.example" },
	}
	for name, change := range others {
		ask, _ := p.Challenge(r, approvalOf)
		proof, _ := k.get(t, ask)
		b := approvalOf
		change(&b)
		if err := p.Verify(r, b, proof); !refused(err) {
			t.Errorf("an assertion for one approval, used for %s: %v", name, err)
		}
	}

	try := func(name string, setup func(), r *site.Request) {
		t.Helper()
		ask, _ := p.Challenge(person("user:1", "sess-1"), approvalOf)
		setup()
		proof, _ := k.get(t, ask)
		if err := p.Verify(r, approvalOf, proof); !refused(err) {
			t.Errorf("%s: %v", name, err)
		}
	}
	try("no user verification", func() { k.uv = false }, r)
	k.uv = true
	try("another origin", func() { k.origin = "http://localhost:9999" }, r)
	k.origin = testOrigin
	try("another RP ID", func() { k.rpID = "evil.example" }, r)
	k.rpID = testRPID
	try("another account's session", func() {}, person("user:2", "sess-2"))
	try("a counter that went back", func() { k.counter = 0 }, r) // the site holds 1, from the first assertion
	k.counter += 10

	ask, _ = p.Challenge(r, approvalOf)
	proof, _ = k.get(t, ask)
	if err := p.Verify(r, approvalOf, proof); err != nil {
		t.Fatalf("the right assertion after the refusals: %v", err)
	}
	for _, bad := range []string{"", "{}", "not json", `{"nonce":"x","credential":{}}`} {
		if err := p.Verify(r, approvalOf, bad); !refused(err) {
			t.Errorf("the proof %q: %v", bad, err)
		}
	}
}

// A person signs in with their passkey; an unknown one is refused.
func TestPasskeys_SignIn(t *testing.T) {
	p := newPasskeys(t)
	k := enrol(t, p, "user:7")
	ctx := context.Background()
	ask, err := p.SignIn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	challenge, _, nonce := readAsk(t, ask)
	_, cred := k.proofFor(t, challenge, nonce)
	if account, err := p.FinishSignIn(ctx, nonce, cred); err != nil || account != "user:7" {
		t.Fatalf("sign in: %q %v", account, err)
	}
	if _, err := p.FinishSignIn(ctx, nonce, cred); !refused(err) {
		t.Fatalf("a replayed sign-in: %v", err)
	}
	stranger := newSoftKey(t, testRPID, testOrigin)
	ask, _ = p.SignIn(ctx)
	challenge, _, nonce = readAsk(t, ask)
	_, cred = stranger.proofFor(t, challenge, nonce)
	if _, err := p.FinishSignIn(ctx, nonce, cred); !refused(err) {
		t.Fatalf("an unknown passkey: %v", err)
	}
}

// A registration answer without user verification is refused, and a
// registration challenge is not an assertion's.
func TestPasskeys_Registration(t *testing.T) {
	p := newPasskeys(t)
	ctx := context.Background()
	ask, _ := p.Register(ctx, "user:3")
	k := newSoftKey(t, testRPID, testOrigin)
	k.uv = false
	_, _, nonce := readAsk(t, ask)
	if _, err := p.FinishRegistration(ctx, "user:3", nonce, k.create(t, ask), ""); !refused(err) {
		t.Fatalf("a passkey made without user verification: %v", err)
	}
	ask, _ = p.Register(ctx, "user:3")
	_, _, nonce = readAsk(t, ask)
	k.uv = true
	if _, err := p.FinishRegistration(ctx, "user:4", nonce, k.create(t, ask), ""); !refused(err) {
		t.Fatalf("another account's registration: %v", err)
	}
	if has, _ := p.Has(ctx, "user:3"); has {
		t.Fatal("a refused registration stored a passkey")
	}
}
