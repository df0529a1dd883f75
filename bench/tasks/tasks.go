package tasks

import (
	"context"
	"slices"

	"github.com/affordances-go/affordances/examples/shop/shop"
	"github.com/affordances-go/affordances/protocol"
)

// Kind sorts the tasks by what they ask of an agent.
type Kind string

const (
	// Write changes the person's data and needs their sign-in.
	Write Kind = "write"
	// Approval needs the person's approval on the site as well.
	Approval Kind = "approval"
	// Unavailable asks for something the store cannot do now: the right
	// answer reports why, without trying.
	Unavailable Kind = "unavailable"
	// Read asks a question answered from pages.
	Read Kind = "read"
)

// Task is one task of the set: what the person asks, the state the store
// starts in, and the check of the outcome in the database (and, for a
// question, of the answer against the database).
type Task struct {
	ID        string
	Kind      Kind
	Statement string
	// Setup prepares the store before the agent starts (nil: as seeded).
	Setup func(ctx context.Context, w *World) error
	// Check reads the outcome; answer is the agent's last words, and log
	// what it did. nil is success.
	Check func(ctx context.Context, w *World, answer string, log *Log) error
	// Script is how a good scripted agent does the task on any path, from
	// the statement's facts alone.
	Script func(ctx context.Context, s *Scout) (answer string, err error)
}

// Who the agent acts for, as every statement gives it.
const (
	personEmail    = shop.DemoEmail
	personPassword = shop.DemoPassword
)

// All is the task set, in a fixed order.
func All() []Task { return slices.Clone(all) }

var all = slices.Concat(writes, approvals, unavailables, reads)

// queryFor is the search a path allows for a product's name ("" when it
// allows none).
func queryFor(s *Scout, name string) string {
	if s.A.Searchable() {
		return name
	}
	return ""
}

func hasProduct(c catalog, name string) bool {
	for _, p := range c.Products {
		if p.Name == name {
			return true
		}
	}
	return false
}

// ordered is the answer of a placed order: the site's message.
func ordered(d *protocol.Delta, err error) (string, error) {
	if err != nil {
		return "", err
	}
	return d.Message, nil
}
