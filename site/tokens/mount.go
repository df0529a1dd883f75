package tokens

import (
	_ "embed"
	"html/template"

	"github.com/affordances-go/affordances/site"
)

//go:embed tokens.html
var fragment string

// Template adds the view of the person's tokens to t, as the template
// "affordances-tokens", for a page of the application's that embeds it:
//
//	{{template "affordances-tokens" .}}
//
// where . is the page's [site.View]. t must have [site.Funcs]. The view
// lists the tokens (label, what each may do, last use and agent, a revoke
// button), shows a new token once, and has the form that makes one.
func Template(t *template.Template) (*template.Template, error) {
	return t.Parse(fragment)
}

// page is the whole page [Kit.Mount] serves.
const page = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>API tokens</title>{{affordancesLink}}{{.Scripts}}</head>
<body><main>{{with .Flash}}<p role="status">{{.}}</p>{{end}}{{template "affordances-tokens" .}}</main></body></html>`

// MountOptions describe the page [Kit.Mount] adds.
type MountOptions struct {
	// Description is the page's line in the site index; "The signed-in
	// person's API tokens" when empty.
	Description string
	// View renders the page; nil: a plain page of the kit's that holds
	// only the view of the tokens. A view of the application's (its own
	// layout) embeds "affordances-tokens" (see [Template]).
	View *template.Template
	// Entities are more entities of the page, beside the tokens.
	Entities []site.EntityLoader
}

// Mount adds the person's page of tokens to s at pattern, such as
// "/account/tokens": the tokens' entities and the actions createToken and
// revokeToken. The page is personal: never cached.
func (k *Kit) Mount(s *site.Site, pattern string, o MountOptions) *site.Page {
	if o.Description == "" {
		o.Description = "The signed-in person's API tokens"
	}
	if o.View == nil {
		t := template.New("page").Funcs(site.Funcs())
		o.View = template.Must(Template(template.Must(t.Parse(page))))
	}
	p := s.Page(pattern, site.PageOptions{
		Description: o.Description,
		View:        o.View,
		Personal:    true,
		Entities:    append([]site.EntityLoader{k.Entities()}, o.Entities...),
	})
	k.Actions(p)
	return p
}
