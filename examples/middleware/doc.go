// Package middleware is a test of a Go web app of the most common shape
// adopting the library with its own middleware: sessions kept in the
// request's context (alexedwards/scs), CSRF tokens in every form
// (justinas/nosurf), and a cookie store written on the response
// (gorilla/sessions). The site runs the app's session middleware on every
// door (site.Options.Middleware), its CSRF check on the person's HTML door
// only (PersonMiddleware, with the token in the library's forms through
// FormFields), and agents' calls keep the protocol's rules.
package middleware
