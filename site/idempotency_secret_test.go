package site_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"log/slog"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site"
	"github.com/affordances-go/affordances/site/idempotency"
	"github.com/affordances-go/affordances/site/sitetest"
)

// seenStore is an in-memory key store that keeps every fingerprint it
// was given, as a database would.
type seenStore struct {
	*idempotency.Memory
	mu  sync.Mutex
	fps []string
}

func (s *seenStore) Claim(ctx context.Context, scope, key, fp, claim string, lease, ttl time.Duration) (idempotency.Record, bool, error) {
	s.mu.Lock()
	s.fps = append(s.fps, fp)
	s.mu.Unlock()
	return s.Memory.Claim(ctx, scope, key, fp, claim, lease, ttl)
}

type signInInput struct {
	Email    string `json:"email"`
	Password string `json:"password"`
}

func signInSite(store idempotency.Store, secret []byte) *site.Site {
	s := site.New(site.Options{Idempotency: site.IdempotencyOptions{Store: store, Secret: secret}, Logger: slog.New(slog.DiscardHandler)})
	p := s.Page("/login", site.PageOptions{Load: func(r *site.Request) (*site.State, error) { return &site.State{}, nil }})
	site.Handle(p, site.Action{Name: "signIn", Expose: protocol.ExposePublic},
		func(r *site.Request, in signInInput) (site.Done, error) { return site.Done{Message: "Signed in."}, nil })
	return s
}

// A leaked key store must not give a password back: a fingerprint is
// keyed with a secret that is not in the store, so hashing a guess the
// way the fingerprint's text is built matches nothing.
func TestIdempotency_AFingerprintIsNoPasswordHash(t *testing.T) {
	store := &seenStore{Memory: idempotency.NewMemory()}
	s := signInSite(store, nil)
	c := sitetest.New(t, s)
	body := `{"action":"signIn","input":{"email":"ada@example.com","password":"hunter2"}}`
	if res := c.CallBody("/login", body, sitetest.Header("Idempotency-Key", "k1")); res.Code != 200 {
		t.Fatalf("sign in: %d %s", res.Code, res.Body)
	}
	if len(store.fps) == 0 {
		t.Fatal("no fingerprint stored")
	}
	// The guess, hashed as a fingerprint's parts are written.
	guess := func(in any) string {
		b, _ := json.Marshal(struct {
			Page     string `json:"p"`
			Action   string `json:"a"`
			Input    any    `json:"i"`
			Confirm  bool   `json:"c"`
			Approval string `json:"ap"`
		}{"/login", "signIn", in, false, ""})
		h := sha256.Sum256(b)
		return hex.EncodeToString(h[:])
	}
	raw := json.RawMessage(`{"email":"ada@example.com","password":"hunter2"}`)
	var generic any
	json.Unmarshal(raw, &generic)
	for _, fp := range store.fps {
		if fp == guess(raw) || fp == guess(generic) || fp == guess(map[string][]string{"email": {"ada@example.com"}, "password": {"hunter2"}}) {
			t.Fatalf("the stored fingerprint is the plain hash of the input: a guess of the password is tested with one hash")
		}
	}
	// The same call with the same key is still recognised (a replay), and
	// another password under the key is still another call.
	if res := c.CallBody("/login", body, sitetest.Header("Idempotency-Key", "k1")); res.Code != 200 || res.Header().Get(protocol.ReplayedHeader) != "true" {
		t.Fatalf("the repeat: %d replayed %q", res.Code, res.Header().Get(protocol.ReplayedHeader))
	}
	other := `{"action":"signIn","input":{"email":"ada@example.com","password":"hunter3"}}`
	if res := c.CallBody("/login", other, sitetest.Header("Idempotency-Key", "k1")); res.Code != 409 {
		t.Fatalf("another input under the key: %d", res.Code)
	}
}

// Instances that share a key store share the secret: a retry that reaches
// another instance is the same call there. A form's fields are keyed too.
func TestIdempotency_InstancesWithOneSecretAgree(t *testing.T) {
	store := &seenStore{Memory: idempotency.NewMemory()}
	secret := []byte("0123456789abcdef0123456789abcdef")
	a, b := sitetest.New(t, signInSite(store, secret)), sitetest.New(t, signInSite(store, secret))
	body := `{"action":"signIn","input":{"email":"ada@example.com","password":"hunter2"}}`
	a.CallBody("/login", body, sitetest.Header("Idempotency-Key", "k2"))
	if res := b.CallBody("/login", body, sitetest.Header("Idempotency-Key", "k2")); res.Header().Get(protocol.ReplayedHeader) != "true" {
		t.Fatalf("another instance with the secret: %d, replayed %q", res.Code, res.Header().Get(protocol.ReplayedHeader))
	}
	form := url.Values{"_action": {"signIn"}, "email": {"ada@example.com"}, "password": {"hunter2"}}
	a.PostForm("/login", form, sitetest.Header("Idempotency-Key", "k3"))
	b.PostForm("/login", form, sitetest.Header("Idempotency-Key", "k3"))
	if n := len(store.fps); n < 4 || store.fps[n-1] != store.fps[n-2] {
		t.Fatalf("a form's fingerprints differ between instances: %v", store.fps)
	}
	defer func() {
		if r := recover(); r == nil {
			t.Fatal("a secret of 4 bytes was taken")
		}
	}()
	signInSite(store, []byte("abcd"))
}
