package site

import (
	"bytes"
	"html/template"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/affordances-go/affordances/internal/htmlform"
	"github.com/affordances-go/affordances/internal/respond"
	"github.com/affordances-go/affordances/internal/validate"
	"github.com/affordances-go/affordances/protocol"
)

// View is the data a page's template is executed with: the state the
// loader returned, and what the template needs to show the page's actions.
type View struct {
	*State
	// Request is the request being answered.
	Request *Request
	// Route is the page's route in bracket form.
	Route string

	// Error is set when the page is shown again after a form's call
	// failed: the error, with its issues.
	Error *protocol.Error
	// Form holds the values the failed form posted, to fill it again;
	// after a form that succeeded and came back to the same page, the
	// values it posted (without secrets), so that choices stay chosen.
	Form url.Values
	// FailedAction names the action whose form failed.
	FailedAction string
	// Flash is the message of the action the person's last form ran
	// ("Added 2 × Heavyweight Tee (Black, M) to your cart."), shown on the
	// page they were sent to next, once.
	Flash string

	page    *Page
	actions []protocol.ActionDescriptor
}

// Entities returns the page's entities by name, for the view's template
// ({{.Entities.product.Name}}): a template reads by name, where Go code
// reads an entity with its [Key].
func (v *View) Entities() map[string]any {
	if v.State == nil {
		return nil
	}
	return v.State.entities
}

// Scripts returns the script tags the site's extensions add to every
// page it renders ([Extender.Script]), such as the script that asks for
// the person's proof, for the page's head: a layout puts {{.Scripts}}
// there.
func (v *View) Scripts() template.HTML {
	if v.page == nil {
		return ""
	}
	return v.page.site.scripts
}

// AsksPerson reports whether the form of the named action carries the
// person's proof on this page: a people-only action, or one with
// approval, on a site with a gate of [StagePresence]. A form written by
// hand marks itself {{if .AsksPerson "placeOrder"}} data-presence{{end}}
// and writes its hidden fields with actionFields; the library's forms
// (actionForm) and its confirmation page do both themselves.
func (v *View) AsksPerson(name string) bool {
	return v.page != nil && v.presence(v.page.byName[name])
}

// Actions returns the descriptors of the actions this person may see,
// with their availability, in registration order.
func (v *View) Actions() []protocol.ActionDescriptor {
	if v.actions == nil {
		v.actions = v.page.describe(v.Request, v.State)
	}
	return v.actions
}

// AgentActions returns the actions an agent in the person's browser may
// call from this page: those of [View.Actions] but people-only ones, each
// with its output schema (which graphs leave out), for a door that offers
// them as tools there.
func (v *View) AgentActions() []protocol.ActionDescriptor {
	out := make([]protocol.ActionDescriptor, 0, len(v.Actions()))
	for _, d := range v.Actions() {
		if a := v.page.byName[d.Name]; a != nil && !a.meta.PeopleOnly {
			d.Output = a.summary.Output
			out = append(out, d)
		}
	}
	return out
}

// Action returns the descriptor of the named action, or nil when the
// person may not see it.
func (v *View) Action(name string) *protocol.ActionDescriptor {
	for i, a := range v.Actions() {
		if a.Name == name {
			return &v.Actions()[i]
		}
	}
	return nil
}

// FieldError returns the message of the first issue about the named input
// field of the failed form ("qty", or "address.city" for a nested one),
// or "".
func (v *View) FieldError(field string) string {
	if v.Error == nil {
		return ""
	}
	var want string
	for _, part := range strings.Split(field, ".") {
		want += "/" + validate.EscapePointer(part)
	}
	for _, is := range v.Error.Issues {
		if is.Path == want || strings.HasPrefix(is.Path, want+"/") {
			return is.Message
		}
	}
	return ""
}

// affordancesLink is the template function of the link element: the tag
// with no argument; with one, the tag for a *View of a page and for a
// tag [Site.Link] gave, nothing for anything else.
func affordancesLink(of ...any) template.HTML {
	if len(of) == 0 {
		return LinkTag
	}
	switch v := of[0].(type) {
	case *View:
		if v != nil && v.page != nil {
			return LinkTag
		}
	case template.HTML:
		if v == LinkTag {
			return LinkTag
		}
	}
	return ""
}

// Link returns the link element ([LinkTag]) when one of the site's pages
// answers a GET of hr's path with a graph, and "" otherwise: for the
// <head> of a template the application renders itself and shares
// between routes with and without a page (data["AffordancesLink"] =
// s.Link(r), written as {{.AffordancesLink}} or {{affordancesLink
// .AffordancesLink}}). A route with a page is not a promise that the
// thing it names exists; the application's own not-found page leaves the
// element out.
func (s *Site) Link(hr *http.Request) template.HTML {
	if p, _ := s.route(hr, hr.URL.EscapedPath(), http.MethodGet); p != nil {
		return LinkTag
	}
	return ""
}

// Funcs returns the template functions of the package, to add to a page
// template before parsing it:
//
//		tmpl := template.Must(template.New("").Funcs(site.Funcs()).ParseFS(...))
//
//	  - affordancesLink writes the <link rel="affordances"> element for the
//	    page's <head>. Given an argument, it knows: {{affordancesLink .}}
//	    writes it for a [View] the site renders for a page with a graph
//	    and nothing for any other value, so that a layout shared with pages
//	    that have no graph (a not-found page, a tag page the application
//	    renders) announces none. For a page the application renders from
//	    its own data, pass [Site.Link] of its request instead.
//	  - actionForm VIEW NAME [FIELD VALUE]... writes a complete form for an
//	    action: a labelled control per input property, a submit button that
//	    is disabled (with the reason shown) when the action is unavailable,
//	    and the field errors of a failed post. FIELD VALUE pairs fix inputs
//	    as hidden fields, such as the SKU of a product page. A field's label
//	    is its title tag, else its description tag, else its JSON name in
//	    words ("giftNote" reads "Gift note"); the button reads the action's
//	    name in words ("addToCart" reads "Add to cart") unless the pair
//	    "_button" TEXT says otherwise. Inside a range, pass the page's View
//	    as $.
//	  - actionField NAME writes the hidden field that names the action, for
//	    forms written by hand.
//	  - actionFields VIEW NAME writes every hidden field a form written by
//	    hand needs: the action's, the application's own (Options.FormFields,
//	    such as a CSRF token), and the proof of presence of a people-only
//	    action when the site has a Presence (the form element also needs
//	    the data-presence attribute).
func Funcs() template.FuncMap {
	return template.FuncMap{
		"affordancesLink": affordancesLink,
		"actionForm":      actionForm,
		"actionField":     actionField,
		"actionFields":    actionFields,
	}
}

// serveHTML answers a browser's GET or HEAD of a page with its view,
// rendered from the same state a graph would hold.
func (s *Site) serveHTML(w http.ResponseWriter, hr *http.Request, p *Page) {
	r, e := s.authenticate(hr)
	if e != nil {
		s.htmlFailure(w, hr, e)
		return
	}
	r.byPerson = navigation(hr) // the person's own view of the page, not a script's fetch of it
	st, e := p.loadState(r)
	if e != nil {
		s.htmlFailure(w, hr, e)
		return
	}
	// What the page's loaders set for the person (a cookie that carries a
	// one-time notice, cleared as it is shown) goes with the page. Only
	// here: a form's failure page must not send what its action set.
	r.flushHeader(w.Header())
	v := &View{State: st, Request: r, Route: p.route, page: p}
	if f := htmlform.TakeFlash(w, hr, s.Secure(hr)); f.Message != "" || f.Form != nil {
		w.Header().Set("Cache-Control", "private, no-store")
		v.Flash, v.Form = f.Message, f.Form
	}
	s.renderPage(w, r, p, v, http.StatusOK)
}

// htmlFailure answers a browser whose request failed before its page
// could be rendered: the site's 404 page for not_found, a plain error
// page otherwise. The log already holds the details.
func (s *Site) htmlFailure(w http.ResponseWriter, hr *http.Request, e *Error) {
	switch e.code {
	case protocol.CodeNotFound:
		w.Header().Add("Vary", "Accept")
		s.opts.NotFound.ServeHTTP(w, hr)
	case protocol.CodeInternal:
		http.Error(w, "Internal Server Error", http.StatusInternalServerError)
	default:
		http.Error(w, e.message, e.Status())
	}
}

// Head adds what f returns for each page the site renders to that page's
// head, just before its </head>, whatever the page's layout: data of the
// page's own that an extension's script reads without a request of its
// own (the tools of a page, for a door in the person's browser), with the
// script's tag. f runs once per rendered page, after its template, and
// must write only what is safe in a head (escape what it embeds).
func (x *Extender) Head(f func(v *View) template.HTML) {
	if f == nil {
		panic("site: Extender.Head(nil)")
	}
	x.s.heads = append(x.s.heads, f)
}

// withHeads adds the extensions' heads (Extender.Head) for v to a
// rendered page, before its </head>; a page without one is left as it is.
func (s *Site) withHeads(page []byte, v *View) []byte {
	if len(s.heads) == 0 {
		return page
	}
	i := bytes.Index(page, []byte("</head>"))
	if i < 0 {
		return page
	}
	out := make([]byte, 0, len(page)+1024)
	out = append(out, page[:i]...)
	for _, f := range s.heads {
		out = append(out, f(v)...)
	}
	return append(out, page[i:]...)
}

// renderPage renders the page's view with the headers of a page that has
// a graph. A fault of the site's code on the state while rendering (a
// guard reading a wrongly typed entity) is a 500, as a template error is.
func (s *Site) renderPage(w http.ResponseWriter, r *Request, p *Page, v *View, status int) {
	var buf bytes.Buffer
	err := p.opts.View.Execute(&buf, v)
	if err == nil {
		err = v.State.fault()
	}
	if err != nil {
		s.opts.Logger.ErrorContext(r.Context(), "affordances: rendering view", "route", p.route, "path", r.URL.Path, "err", err)
		http.Error(w, "Internal Server Error", http.StatusInternalServerError)
		return
	}
	advertiseGraph(w.Header())
	for _, l := range s.moreLinks() {
		w.Header().Add("Link", l)
	}
	p.setCaching(w.Header(), r, status)
	if w.Header().Get("Set-Cookie") != "" {
		w.Header().Set("Cache-Control", "private, no-store") // a page that sets a cookie is that person's
	}
	respond.HTML(w, r.Request, status, s.withHeads(buf.Bytes(), v))
}

// setCaching sets the Cache-Control of a page's HTML or Markdown: never
// stored for a caller with credentials or a Personal page; for an
// anonymous caller of a page with CacheFor, cached that long, unless the
// page's code set its own.
func (p *Page) setCaching(h http.Header, r *Request, status int) {
	switch {
	case r.Caller.Mode != "" || p.opts.Personal:
		h.Set("Cache-Control", "private, no-store")
	case p.opts.CacheFor > 0 && status == http.StatusOK && h.Get("Cache-Control") == "":
		h.Set("Cache-Control", "public, max-age="+strconv.Itoa(int(p.opts.CacheFor.Seconds())))
	}
}
