// Package site is the server side of Affordances on net/http.
//
// A [Site] is an http.Handler made of pages. Each page has a ServeMux
// pattern, a loader that reads the page's [State] for one request, and an
// HTML view. The same URL answers a browser with the view and an agent with
// a graph, and both are built from the one State the loader returned, so an
// agent never sees more than the person would.
//
// A site can stand alone (it is an http.Handler) or be put in front of an
// existing application with [Site.Wrap], which sends everything that is not
// the site's own (an Affordances request, a form of the library, the
// index) on to the application, unchanged. [Options.CallerContext] gives
// the application's code its own user; [Site.View] and [ActionForm] give
// pages it renders itself the library's forms. docs/adopt.md is the guide.
//
// # Pages and state
//
// [Site.Page] registers a page. Its loader returns the entities the page
// shows, the links an agent may follow and an optional Markdown text.
// Entities get a Go type through a [Key], declared once and used by the
// loader that writes the entity and by the guards and summaries that read
// it:
//
//	var ProductKey = site.NewKey[*Product]("product")
//
//	func loadProduct(r *site.Request) (*site.State, error) {
//		p, err := db.Product(r.Context(), r.PathValue("slug"))
//		if errors.Is(err, sql.ErrNoRows) {
//			return nil, site.ErrNotFound
//		}
//		if err != nil {
//			return nil, err
//		}
//		st := &site.State{}
//		ProductKey.Set(st, p)
//		return st, nil
//	}
//
// That is the shorthand (PageOptions.Load). A page that names its
// entities lists their loaders instead, and each runs only when one of
// its entities is read: [Entity] for one entity, [Group] for several read
// together, such as a page's whole content; the site's header can be two
// more loaders every page lists. A call then loads what its guards read
// and, after its action, what its Effects name; a graph or an HTML page
// loads everything:
//
//	s.Page("/products/{slug}", site.PageOptions{
//		Entities: []site.EntityLoader{site.Entity(ProductKey, product), site.Entity(CartKey, cart)},
//	})
//
// Reading an entity that is missing or holds another type is a fault of
// the site, not of the caller: the request answers internal (500) and the
// log names the route and the entity. A guard or summary that panics is
// answered the same way; the process never goes down.
//
// # Actions
//
// [Handle] declares an action on a page with a typed handler. The input
// type's JSON Schema is inferred once, at registration, and every call's
// input is validated against it before it is decoded into the type. The
// [Action] says who may call it (Expose), its precondition (Guard) and the
// entities it changes (Effects). Every graph lists it with its
// availability for the request at hand.
//
// A handler returns a [Result] (or [Done] when it has no output) and an
// error. [Unavailable], [NotFound] and [Invalid] answer the protocol's
// unavailable, not_found and invalid_input; any other error, and any
// panic, answers internal with a generic message, the details going to
// the log only.
//
// Registration errors (no Expose, a duplicate name, a session action on a
// site without authentication, an invalid pattern) panic at start-up with
// the file and line of the call, like a bad ServeMux pattern.
//
// # Input struct tags
//
// The input schema is read from the struct's fields, one tag per JSON
// Schema keyword. Property names, omitted and embedded fields follow
// encoding/json, so the schema describes exactly what the decoder fills:
//
//	type AddToCart struct {
//		SKU  string `json:"sku" description:"the SKU to add" pattern:"^[A-Z0-9-]+$"`
//		Qty  int    `json:"qty,omitempty" minimum:"1" maximum:"10" default:"1"`
//		Size string `json:"size" enum:"S,M,L"`
//	}
//
//	tag           applies to         example
//	title         any field          title:"Size" (a short label; HTML forms show it)
//	description   any field          description:"the SKU to add"
//	pattern       strings            pattern:"^[A-Z0-9-]+$" (matches anywhere unless anchored)
//	format        strings            format:"email" (checked: email, date, date-time, uri, uuid, …)
//	minLength     strings            minLength:"1"
//	maxLength     strings            maxLength:"200"
//	minimum       numbers            minimum:"0"
//	maximum       numbers            maximum:"10"
//	minItems      slices             minItems:"1"
//	maxItems      slices             maxItems:"20"
//	enum          strings, numbers   enum:"S,M,L" (comma-separated)
//	default       any field          default:"1" (documentation and form pre-fill only)
//	example       any field          example:"TEE-BLK-M" (shown to agents; messages say "must look like" it)
//	required      any field          required:"false"
//	autocomplete  any field          autocomplete:"new-password" (the person's form only; default for a password: current-password)
//
// A field is required unless its json tag has omitempty or omitzero, it is
// a pointer, or required:"false" says so. Unknown properties are
// rejected, and so are names that match a field only when case is ignored.
// A tag that does not fit its field (minimum on a string) is a
// registration error. [Action.Input] replaces the inferred schema with one
// written by hand.
//
// An input type may also implement [InputGuard], a precondition that
// depends on the input (this size is in stock), and [Summarizer], the text
// a person reads before approving a confirm action.
//
// # Calls: one pipeline, many doors
//
// A call goes through the same steps, in the protocol's order, whatever
// carried it: resolve the action, check the Origin rule and expose, apply
// the rate limit, (with an Idempotency-Key) claim or replay the key,
// validate the input, evaluate the guard, ask for confirmation, run. Each
// failure answers with the protocol's error code and status; see [Error].
// What a call may do depends on who calls ([Caller]), never on the door:
// an agent's POST, an HTML form, and the doors of other packages (through
// [Site.Execute] and [Site.ReadGraph]) all reach the one decision. A door
// hands the pipeline who calls, found once from its request, and the call
// it decoded; no step reads a header. Only a form posted in the person's
// own cookie session, as a navigation with the site's Origin, is the
// person acting; any other caller of a confirm action is an agent.
//
// Extensions (approvals, presence, other doors, an application's own
// rules) plug in through one seam, [Extension]: gates at step 6, doors
// with their listing in the discovery files, and scripts for every page.
// docs/architecture.md maps the package: the core, its doors, the gates,
// the order of a call with the file that holds each step, and how to add
// a door or a gate.
//
// # HTML forms
//
// [Funcs] adds template functions that write an action's form from its
// schema, so a person without JavaScript can use the same actions. A form
// post runs through the same pipeline and answers with a redirect (303),
// the page shown again with the error, or a confirmation page.
//
// # Testing
//
// Package sitetest drives a site in process: graphs, calls, forms and a
// fake clock for the rate limit.
package site
