package site

import "fmt"

// EntityLoader loads one entity of a page on its own, the first time the
// entity is read. See [PageOptions.Entities] and [Entity].
type EntityLoader struct {
	name string
	load func(r *Request) (any, error)
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
	return EntityLoader{name: k.name, load: func(r *Request) (any, error) { return load(r) }}
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
		known[l.name] = true
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
			if _, set := st.entities[e.name]; !set {
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
		if e.name == name && lz.pending&(1<<i) != 0 {
			return st.run(i)
		}
	}
	return false
}

// run runs the page's entity loader i, once, and reports whether it
// stored its entity.
func (st *State) run(i int) bool {
	lz := &st.lazy
	lz.pending &^= 1 << i
	e := lz.page.opts.Entities[i]
	v, err := e.load(lz.r)
	if err != nil {
		if lz.err == nil {
			lz.err = err
		}
		return false
	}
	if st.entities == nil {
		st.entities = make(map[string]any, len(lz.page.opts.Entities))
	}
	st.entities[e.name] = v
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
		v, read := before.entities[e.name]
		if read && after.lazy.pending&(1<<i) != 0 && !changed[e.name] {
			if after.entities == nil {
				after.entities = make(map[string]any, len(p.opts.Entities))
			}
			after.entities[e.name] = v
			after.lazy.pending &^= 1 << i
		}
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
