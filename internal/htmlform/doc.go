// Package htmlform turns an action's input schema into an HTML form and a
// posted form back into the JSON value the schema validates. It is the
// form door's mechanics, apart from the pipeline: package site decides
// which action a form runs and for whom; this package only writes and
// reads fields.
package htmlform
