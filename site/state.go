package site

import (
	"fmt"
	"reflect"
	"runtime/debug"

	"github.com/affordances-go/affordances/protocol"
)

// State is what a page shows for one request. The page's loader returns it;
// the HTML view and the graph are both rendered from it.
//
// Read and write entities with a [Key], which gives them their Go type.
// A State belongs to one request: a loader returns a new one each time.
type State struct {
	// Nav lists the links an agent can follow from the page.
	Nav []protocol.Nav
	// MD is an optional short Markdown rendering of the page: the body
	// of its Markdown answer, and readPage's text on MCP. A graph carries
	// it only when the agent asks (md=1 on the media type) or when the
	// page has no entities: otherwise the entities say the same, and an
	// agent would pay for the page twice.
	MD string

	// entities is the page's data, keyed by entity name, written and read
	// with a [Key]. Values are encoded with encoding/json for agents and
	// read by field name in templates.
	entities map[string]any
	err      error     // the first fault of code that read this state, see [Key.Get]
	lazy     lazyState // entity loaders not run yet, see [Entity]
}

// Key names an entity and gives it a Go type, so that a loader that writes
// it and a guard, summary or input guard that reads it agree at compile
// time. Declare each key once, beside the entity's type:
//
//	var ProductKey = site.NewKey[*Product]("product")
//
//	// in the loader
//	st := &site.State{}
//	ProductKey.Set(st, prod)
//
//	// in a guard
//	p := ProductKey.Get(st)
//
// Two keys may share a name with different types (a full cart on the cart
// page, a summary of it elsewhere); reading with the wrong one on a page is
// a fault of the site, reported as below, never a panic.
type Key[T any] struct{ name string }

// NewKey returns the key of the entity called name.
func NewKey[T any](name string) Key[T] { return Key[T]{name: name} }

// Name returns the entity's name: its key in the graph's entities and in
// a template's .Entities.
func (k Key[T]) Name() string { return k.name }

// Set stores v as the entity.
func (k Key[T]) Set(st *State, v T) {
	if st.entities == nil {
		st.entities = map[string]any{}
	}
	st.entities[k.name] = v
}

// Get returns the entity. An entity that is missing or holds another type
// is a fault of the site, not of the caller: Get returns T's zero value,
// and the request that read it answers internal (500) once the guard or
// summary returns, with the route, the entity and both types in the log.
// Use [Key.Lookup] for an entity that a page may leave out.
func (k Key[T]) Get(st *State) T {
	v, ok := k.Lookup(st)
	if !ok && st != nil && st.err == nil && st.loadErr() == nil {
		st.err = fmt.Errorf("entity %q is missing from the state (want %s)", k.name, typeName[T]())
	}
	return v
}

// Lookup returns the entity and whether the state holds it. A missing
// entity is not a fault; one of another type is, as with [Key.Get].
func (k Key[T]) Lookup(st *State) (T, bool) {
	var zero T
	if st == nil {
		return zero, false
	}
	x, present := st.entity(k.name)
	if !present {
		return zero, false
	}
	v, ok := x.(T)
	if !ok {
		if st.err == nil {
			st.err = fmt.Errorf("entity %q holds %T, want %s", k.name, x, typeName[T]())
		}
		return zero, false
	}
	return v, true
}

func typeName[T any]() string { return reflect.TypeFor[T]().String() }

// fault returns the first fault recorded while the site's own code read
// the state, or nil.
func (st *State) fault() error {
	if st == nil {
		return nil
	}
	return st.err
}

// recordPanic turns a panic of the site's code that reads st (a guard, a
// summary) into a recorded fault. When a wrongly typed entity was read
// first, that reading is the cause and is kept.
func (st *State) recordPanic(p any) {
	if st.err == nil {
		st.err = fmt.Errorf("panic: %v\n%s", p, debug.Stack())
	}
}
