package site

// exists is where a call first meets its page, at step 1 (resolve): the
// URL must name something that exists and that the caller may see
// before anything else runs (PageOptions.Exists). A page that declares
// no Exists and whose route has parameters is found by loading its
// whole state, as a graph would, unless its loaders read in the call's
// transaction (foundInTransaction); a route without parameters names
// its one page.
func (p *Page) exists(r *Request) error {
	switch {
	case p.opts.Exists != nil:
		return p.opts.Exists(r)
	case !p.params || p.foundInTransaction():
		return nil
	}
	st, err := p.phaseState(r)
	if err != nil || st.lazy.page == nil {
		return err
	}
	return st.loadAll()
}

// foundInTransaction reports whether the page is found by its loaders
// inside the call's transaction rather than at step 1: a page with
// parameters, Transact and no Exists, whose loaders read only in the
// transaction. Its whole state loads there before the guard
// (checkGuard), so no action runs on a page that is not there, but a
// caller may meet an earlier step's answer (401, 429, 400) first.
func (p *Page) foundInTransaction() bool {
	return p.params && p.opts.Exists == nil && p.opts.Transact != nil
}
