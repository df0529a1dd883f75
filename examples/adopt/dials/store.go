// Package dials is a small web application in the usual shape of the Go
// applications that adopt Affordances, written as if Affordances did not
// exist: gorilla/mux, its own signed session cookie and API keys, a REST
// API on the same URLs as its HTML pages, HTML forms with a method
// override, and middleware for panics, metrics, flash messages and the
// signed-in user, which its services read from the request's context.
//
// Package agents adopts it; nothing here knows.
package dials

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
)

// User is a member of the application.
type User struct {
	ID           int
	Name         string
	Email        string
	PasswordHash string
}

// Dial is a named value from 0 to 100 that its owner turns.
type Dial struct {
	ID    int    `json:"id"`
	Owner int    `json:"-"`
	Name  string `json:"name"`
	Value int    `json:"value"`
}

// The services' errors.
var (
	ErrNotFound  = errors.New("dials: no such dial")
	ErrForbidden = errors.New("dials: sign in first")
	ErrInvalid   = errors.New("dials: a dial's name is 1 to 40 characters, its value 0 to 100")
)

type userKey struct{}

// WithUser returns ctx carrying the signed-in user, as the application's
// middleware sets it.
func WithUser(ctx context.Context, u User) context.Context {
	return context.WithValue(ctx, userKey{}, u)
}

// UserFrom returns the signed-in user of ctx.
func UserFrom(ctx context.Context) (User, bool) {
	u, ok := ctx.Value(userKey{}).(User)
	return u, ok
}

// Store holds the members, their API keys and their dials, in memory.
type Store struct {
	mu     sync.Mutex
	users  []User
	keys   map[string]int // API key -> user id
	dials  []Dial
	nextID int
}

// NewStore returns a store with two members, ann (API key "ann-key",
// password "ann-password") and bob, and a dial each.
func NewStore() *Store {
	return &Store{
		users: []User{
			{ID: 1, Name: "Ann", Email: "ann@example.com", PasswordHash: "pw:ann-password"},
			{ID: 2, Name: "Bob", Email: "bob@example.com", PasswordHash: "pw:bob-password"},
		},
		keys:   map[string]int{"ann-key": 1, "bob-key": 2},
		dials:  []Dial{{ID: 1, Owner: 1, Name: "Kitchen", Value: 40}, {ID: 2, Owner: 2, Name: "Garage", Value: 10}},
		nextID: 3,
	}
}

// User returns the member with the id.
func (s *Store) User(id int) (User, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	i := slices.IndexFunc(s.users, func(u User) bool { return u.ID == id })
	if i < 0 {
		return User{}, false
	}
	return s.users[i], true
}

// SignIn returns the member with the email and password.
func (s *Store) SignIn(email, password string) (User, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, u := range s.users {
		if strings.EqualFold(u.Email, email) && u.PasswordHash == "pw:"+password {
			return u, true
		}
	}
	return User{}, false
}

// KeyUser returns the member an API key belongs to.
func (s *Store) KeyUser(key string) (User, bool) {
	s.mu.Lock()
	id, ok := s.keys[key]
	s.mu.Unlock()
	if !ok {
		return User{}, false
	}
	return s.User(id)
}

// Dials returns the signed-in user's dials.
func (s *Store) Dials(ctx context.Context) ([]Dial, error) {
	u, ok := UserFrom(ctx)
	if !ok {
		return nil, ErrForbidden
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Dial
	for _, d := range s.dials {
		if d.Owner == u.ID {
			out = append(out, d)
		}
	}
	return out, nil
}

// Dial returns one of the signed-in user's dials.
func (s *Store) Dial(ctx context.Context, id int) (Dial, error) {
	u, ok := UserFrom(ctx)
	if !ok {
		return Dial{}, ErrForbidden
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, d := range s.dials {
		if d.ID == id && d.Owner == u.ID {
			return d, nil
		}
	}
	return Dial{}, ErrNotFound
}

// CreateDial adds a dial at 0 for the signed-in user.
func (s *Store) CreateDial(ctx context.Context, name string) (Dial, error) {
	u, ok := UserFrom(ctx)
	if !ok {
		return Dial{}, ErrForbidden
	}
	name = strings.TrimSpace(name)
	if name == "" || len([]rune(name)) > 40 {
		return Dial{}, ErrInvalid
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	d := Dial{ID: s.nextID, Owner: u.ID, Name: name}
	s.nextID++
	s.dials = append(s.dials, d)
	return d, nil
}

// UpdateDial renames a dial of the signed-in user, turns it, or both.
func (s *Store) UpdateDial(ctx context.Context, id int, name *string, value *int) (Dial, error) {
	u, ok := UserFrom(ctx)
	if !ok {
		return Dial{}, ErrForbidden
	}
	if name != nil {
		*name = strings.TrimSpace(*name)
		if *name == "" || len([]rune(*name)) > 40 {
			return Dial{}, ErrInvalid
		}
	}
	if value != nil && (*value < 0 || *value > 100) {
		return Dial{}, ErrInvalid
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, d := range s.dials {
		if d.ID == id && d.Owner == u.ID {
			if name != nil {
				s.dials[i].Name = *name
			}
			if value != nil {
				s.dials[i].Value = *value
			}
			return s.dials[i], nil
		}
	}
	return Dial{}, ErrNotFound
}

// DeleteDial removes a dial of the signed-in user.
func (s *Store) DeleteDial(ctx context.Context, id int) error {
	u, ok := UserFrom(ctx)
	if !ok {
		return ErrForbidden
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	i := slices.IndexFunc(s.dials, func(d Dial) bool { return d.ID == id && d.Owner == u.ID })
	if i < 0 {
		return ErrNotFound
	}
	s.dials = slices.Delete(s.dials, i, i+1)
	return nil
}
