package site

import (
	"fmt"
	"slices"
)

// EntityLoader loads entities of a page on their own, the first time one
// of them is read. See [PageOptions.Entities], [Entity] and [Group].
type EntityLoader struct {
	names []string
	fill  func(r *Request, st *State) error
}

// Entity returns the loader of the entity k: load runs at most once per
// request and phase, the first time the entity is read through k (or
// when a graph or an HTML page needs every entity).
//
// Pages whose entities are loaded one by one let a call read only what
// it needs: its guard loads the entities the guard reads; after the
// action, only the entities of its Effects are loaded again, and the
// others keep the value they had before (an action's Effects declare
// everything it may change). load returns [ErrNotFound] when the request
// names nothing that exists.
func Entity[T any](k Key[T], load func(r *Request) (T, error)) EntityLoader {
	return EntityLoader{names: []string{k.name}, fill: func(r *Request, st *State) error {
		v, err := load(r)
		if err == nil {
			k.Set(st, v)
		}
		return err
	}}
}

// Group returns the loader of entities read together, such as a page
// loaded as a whole or two entities one query answers: fill sets each of
// keys (with [Key.Set]), and may set Nav and MD; it runs at most once per
// request and phase, the first time one of keys is read. It is the same
// loader as [Entity], for several entities: a page lists both kinds in
// PageOptions.Entities, and its actions' Effects are checked against
// every key they name.
func Group(fill func(r *Request, st *State) error, keys ...Named) EntityLoader {
	l := EntityLoader{fill: fill}
	for _, k := range keys {
		if k != nil {
			l.names = append(l.names, k.Name())
		}
	}
	return l
}

// Named is what names an entity: a [Key] is one. Action.Effects takes
// keys, so that an action's effects and the page's entities are named by
// the same declarations.
type Named interface{ Name() string }

// Effects is the list of entities an action changes, by their keys.
func Effects(keys ...Named) []Named { return keys }

// effectNames returns the names of an action's effects, checking them
// against the page's entity loaders when those are all the page loads.
func (p *Page) effectNames(effects []Named) ([]string, error) {
	if len(effects) == 0 {
		return nil, nil
	}
	known := map[string]bool{}
	for _, l := range p.opts.Entities {
		for _, n := range l.names {
			known[n] = true
		}
	}
	names := make([]string, 0, len(effects))
	for _, e := range effects {
		if e == nil || e.Name() == "" {
			return nil, fmt.Errorf("an effect without a name")
		}
		if p.opts.Load == nil && len(p.opts.Entities) > 0 && !known[e.Name()] {
			return nil, fmt.Errorf("effect %q is not one of the page's Entities", e.Name())
		}
		names = append(names, e.Name())
	}
	return names, nil
}

// maxEntityLoaders bounds a page's entity loaders: which ones are pending
// is one bit each.
const maxEntityLoaders = 64

// lazyState is the part of a State that loads entities on first use.
type lazyState struct {
	page    *Page // nil: nothing loads lazily
	r       *Request
	pending uint64 // bit i: the page's entity loader i has not run yet
	err     error  // the first loader's error
}

// phaseState is the state of one phase of a call: the page's Load, when
// it has one, and every entity loader pending until its entity is read.
func (p *Page) phaseState(r *Request) (*State, error) {
	st := &State{}
	if p.opts.Load != nil {
		var err error
		if st, err = p.load(r); err != nil {
			return nil, err
		}
	}
	if len(p.opts.Entities) > 0 {
		st.lazy = lazyState{r: r, page: p}
		for i, e := range p.opts.Entities {
			if !st.holds(e.names) {
				st.lazy.pending |= 1 << i
			}
		}
	}
	return st, nil
}

// fill loads the named entity into st if its loader is pending. It
// reports whether st now holds the entity.
func (st *State) fill(name string) bool {
	lz := &st.lazy
	if lz.pending == 0 {
		return false
	}
	for i, e := range lz.page.opts.Entities {
		if lz.pending&(1<<i) != 0 && slices.Contains(e.names, name) {
			st.run(i)
			_, ok := st.entities[name]
			return ok
		}
	}
	return false
}

// run runs the page's entity loader i, once.
func (st *State) run(i int) {
	lz := &st.lazy
	lz.pending &^= 1 << i
	if err := lz.page.opts.Entities[i].fill(lz.r, st); err != nil && lz.err == nil {
		lz.err = err
	}
}

// holds reports whether the state holds every one of the named entities.
func (st *State) holds(names []string) bool {
	for _, n := range names {
		if _, ok := st.entities[n]; !ok {
			return false
		}
	}
	return true
}

// loadAll runs every pending loader, in the order the page declares
// them, as a graph, an HTML page or a delta without Effects needs.
func (st *State) loadAll() error {
	for i := range st.lazy.page.entityCount() {
		if st.lazy.pending&(1<<i) != 0 {
			st.run(i)
		}
	}
	return st.lazy.err
}

// entityCount is how many entity loaders the page has; a nil page none.
func (p *Page) entityCount() int {
	if p == nil {
		return 0
	}
	return len(p.opts.Entities)
}

// loadErr is the first error of an entity loader, or nil.
func (st *State) loadErr() error {
	if st == nil {
		return nil
	}
	return st.lazy.err
}

// afterState is the state after an action ran: the entities the action
// declares it may change load again on first use; every other entity
// read before keeps its value. Without Effects, everything is loaded
// again, as the delta compares all of it.
func (p *Page) afterState(r *Request, before *State, effects []string) (*State, error) {
	after, err := p.phaseState(r)
	if err != nil || after.lazy.page == nil {
		return after, err
	}
	if len(effects) == 0 {
		return after, after.loadAll()
	}
	changed := make(map[string]bool, len(effects))
	for _, k := range effects {
		changed[k] = true
	}
	for i, e := range p.opts.Entities {
		if after.lazy.pending&(1<<i) == 0 || !before.holds(e.names) || slices.ContainsFunc(e.names, func(n string) bool { return changed[n] }) {
			continue // set by Load, not read before, or changed: loads again
		}
		if after.entities == nil {
			after.entities = make(map[string]any, len(p.opts.Entities))
		}
		for _, n := range e.names {
			after.entities[n] = before.entities[n]
		}
		after.lazy.pending &^= 1 << i
	}
	return after, nil
}

// entity returns a named entity of the state, loading it when pending.
func (st *State) entity(name string) (any, bool) {
	v, ok := st.entities[name]
	if !ok && st.fill(name) {
		v, ok = st.entities[name]
	}
	return v, ok
}
