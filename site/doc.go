// Package site is the server side of Affordances on net/http.
//
// A [Site] is an http.Handler made of pages. Each page has a ServeMux
// pattern, a loader that reads the page's [State] for one request, and an
// HTML view. The same URL answers a browser with the view and an agent with
// a graph, and both are built from the one State the loader returned, so an
// agent never sees more than the person would.
//
// Actions are declared on a page with [Handle]. Their input and output
// schemas are inferred from the handler's Go types when they are registered,
// and every graph lists them with their availability evaluated for the
// request at hand.
//
// A site can stand alone (it is an http.Handler) or be put in front of an
// existing application with [Site.Wrap], which sends everything that is not
// an Affordances request for a registered page on to the application.
package site
