package tokens

import (
	"context"
	"errors"
	"slices"
	"sync"
	"time"
)

// Store keeps tokens. It sees hashes only, never a secret. The [SQL]
// store keeps them in the application's database; [Memory] in memory.
// Every method is safe for concurrent use.
type Store interface {
	// Create stores a new token of account with the secret's hash.
	Create(ctx context.Context, account, label, hash string, g Grant, now time.Time) (Token, error)
	// Lookup returns the token with the hash, if it is not revoked (an
	// expired one too: the kit checks expiry). ErrNotFound otherwise.
	Lookup(ctx context.Context, hash string) (Token, error)
	// Used records the token's use by agent at a time.
	Used(ctx context.Context, id int64, agent string, at time.Time) error
	// List returns account's tokens that are not revoked, oldest first.
	List(ctx context.Context, account string) ([]Token, error)
	// Revoke revokes one of account's tokens; ErrNotFound when account
	// has no such token, or it is revoked already.
	Revoke(ctx context.Context, account string, id int64, now time.Time) error
}

// Memory is a [Store] in memory, for tests and for trying the kit: its
// tokens go with the process.
type Memory struct {
	mu     sync.Mutex
	next   int64
	tokens map[int64]*memToken
}

type memToken struct {
	Token
	hash    string
	revoked bool
}

// NewMemory returns an empty store in memory.
func NewMemory() *Memory { return &Memory{tokens: map[int64]*memToken{}} }

// Create implements [Store].
func (m *Memory) Create(_ context.Context, account, label, hash string, g Grant, now time.Time) (Token, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, t := range m.tokens {
		if t.hash == hash {
			return Token{}, errors.New("tokens: a token with this hash exists")
		}
	}
	m.next++
	t := Token{ID: m.next, Account: account, Label: label, Grant: cloneGrant(g), Created: now.Truncate(time.Second)}
	m.tokens[t.ID] = &memToken{Token: t, hash: hash}
	return t, nil
}

// Lookup implements [Store].
func (m *Memory) Lookup(_ context.Context, hash string) (Token, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, t := range m.tokens {
		if t.hash == hash && !t.revoked {
			return t.copy(), nil
		}
	}
	return Token{}, ErrNotFound
}

// Used implements [Store].
func (m *Memory) Used(_ context.Context, id int64, agent string, at time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if t, ok := m.tokens[id]; ok {
		t.LastUsed, t.LastAgent = at.Truncate(time.Second), agent
	}
	return nil
}

// List implements [Store].
func (m *Memory) List(_ context.Context, account string) ([]Token, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := []Token{}
	for _, t := range m.tokens {
		if t.Account == account && !t.revoked {
			out = append(out, t.copy())
		}
	}
	slices.SortFunc(out, func(a, b Token) int { return int(a.ID - b.ID) })
	return out, nil
}

// Revoke implements [Store].
func (m *Memory) Revoke(_ context.Context, account string, id int64, _ time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	t, ok := m.tokens[id]
	if !ok || t.Account != account || t.revoked {
		return ErrNotFound
	}
	t.revoked = true
	return nil
}

func (t *memToken) copy() Token {
	c := t.Token
	c.Grant = cloneGrant(c.Grant)
	return c
}

func cloneGrant(g Grant) Grant {
	if g.Actions != nil {
		g.Actions = slices.Clone(g.Actions)
	}
	return g
}
