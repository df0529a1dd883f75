package presence

import (
	"context"
	"errors"
	"slices"
	"sync"
	"time"
)

// Credential is one passkey of an account, as a Store keeps it.
type Credential struct {
	// ID is the credential's id, as the authenticator made it.
	ID []byte
	// Name is what the person calls it ("my phone").
	Name string
	// Created is when it was registered.
	Created time.Time
	// Data is the rest of the credential (its public key, signature
	// counter, flags), as this package writes it: opaque to a store.
	Data []byte
}

// Challenge is a ceremony begun and not finished: what its answer is
// checked against. It is used once.
type Challenge struct {
	// Account is whose ceremony it is ("" for a sign-in, which does not
	// know the account yet).
	Account string
	// Kind is "assert", "register" or "signin".
	Kind string
	// Session is the ceremony's state, as this package writes it.
	Session []byte
	// Expires is when it can no longer be answered.
	Expires time.Time
}

// ErrNotFound is what a Store returns for a credential or a challenge it
// does not have (a challenge already taken included).
var ErrNotFound = errors.New("presence: not found")

// Store keeps passkeys and the challenges of ceremonies under way. A site
// with several instances shares one (the demo store keeps them in its
// database); [Memory] is for one instance and tests.
type Store interface {
	// Credentials returns the account's passkeys, oldest first.
	Credentials(ctx context.Context, account string) ([]Credential, error)
	// AddCredential stores a new passkey of the account. A credential id
	// already stored (for any account) is an error.
	AddCredential(ctx context.Context, account string, c Credential) error
	// UpdateCredential replaces the Data of a passkey of the account
	// (its signature counter moved).
	UpdateCredential(ctx context.Context, account string, id, data []byte) error
	// RemoveCredential removes a passkey of the account; ErrNotFound when
	// it has no such passkey.
	RemoveCredential(ctx context.Context, account string, id []byte) error
	// AccountOf returns the account a passkey belongs to, for a sign-in.
	AccountOf(ctx context.Context, id []byte) (string, error)
	// PutChallenge stores a challenge under nonce.
	PutChallenge(ctx context.Context, nonce string, c Challenge) error
	// TakeChallenge returns the challenge under nonce and forgets it, in
	// one step: of two that take it, one gets ErrNotFound.
	TakeChallenge(ctx context.Context, nonce string) (Challenge, error)
}

// Memory is a Store in memory, for one instance and tests. Challenges
// past their time are forgotten as new ones come.
type Memory struct {
	mu         sync.Mutex
	creds      map[string][]Credential // by account
	challenges map[string]Challenge
}

// NewMemory returns an empty store.
func NewMemory() *Memory {
	return &Memory{creds: map[string][]Credential{}, challenges: map[string]Challenge{}}
}

// Credentials implements Store.
func (m *Memory) Credentials(_ context.Context, account string) ([]Credential, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.creds[account]), nil
}

// AddCredential implements Store.
func (m *Memory) AddCredential(_ context.Context, account string, c Credential) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, cs := range m.creds {
		for _, x := range cs {
			if string(x.ID) == string(c.ID) {
				return errors.New("presence: this passkey is registered already")
			}
		}
	}
	m.creds[account] = append(m.creds[account], c)
	return nil
}

// UpdateCredential implements Store.
func (m *Memory) UpdateCredential(_ context.Context, account string, id, data []byte) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for i, x := range m.creds[account] {
		if string(x.ID) == string(id) {
			m.creds[account][i].Data = data
			return nil
		}
	}
	return ErrNotFound
}

// RemoveCredential implements Store.
func (m *Memory) RemoveCredential(_ context.Context, account string, id []byte) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	cs := m.creds[account]
	for i, x := range cs {
		if string(x.ID) == string(id) {
			m.creds[account] = slices.Delete(cs, i, i+1)
			return nil
		}
	}
	return ErrNotFound
}

// AccountOf implements Store.
func (m *Memory) AccountOf(_ context.Context, id []byte) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for account, cs := range m.creds {
		for _, x := range cs {
			if string(x.ID) == string(id) {
				return account, nil
			}
		}
	}
	return "", ErrNotFound
}

// PutChallenge implements Store.
func (m *Memory) PutChallenge(_ context.Context, nonce string, c Challenge) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := time.Now()
	for k, v := range m.challenges {
		if now.After(v.Expires) {
			delete(m.challenges, k)
		}
	}
	m.challenges[nonce] = c
	return nil
}

// TakeChallenge implements Store.
func (m *Memory) TakeChallenge(_ context.Context, nonce string) (Challenge, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	c, ok := m.challenges[nonce]
	if !ok {
		return Challenge{}, ErrNotFound
	}
	delete(m.challenges, nonce)
	return c, nil
}
